package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/internal/cmdline"
)

const datasetsUsage = `datasets fetch hotel|graffiti -to DIR [-from URL]
       datasets verify DIR

fetch downloads a benchmark into DIR/<folder> (cmu-hotel or graffiti): from
-from, a folder URL ending in / that serves the files by name or an archive
(.tar.gz, .tgz, .zip); by default from the dataset's original home when one is
known (Graffiti: the Oxford VGG archive). Downloads resume, every file is
checked against the SHA-256 sums built into clearmatch, and only correct files
get their final names. verify checks a local copy (DIR holding cmu-hotel/
and/or graffiti/) against the same sums.`

func runDatasets(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("datasets", datasetsUsage, stdout)
	to := fs.String("to", "", "fetch: destination folder (the datasets root)")
	from := fs.String("from", "", "fetch: download address (default: the original home, when known)")
	pos, err := cmdline.ParseInterleaved(fs, args)
	if err != nil {
		return cmdline.UsageError{Err: err}
	}
	known := datasets.Datasets()
	switch {
	case len(pos) == 2 && pos[0] == "fetch":
		d, ok := known[pos[1]]
		if !ok {
			return cmdline.Usagef("unknown dataset %q (want hotel or graffiti)", pos[1])
		}
		if *to == "" {
			return cmdline.Usagef("fetch needs -to DIR")
		}
		pr := cmdline.NewProgress(stderr).Stage("fetch")
		fe := &datasets.Fetcher{Progress: func(done, total int, _ string) { pr(done, total) }}
		if err := fe.Fetch(ctx, d, *to, *from); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d files in %s, all verified\n", d.Name, len(d.Files), filepath.Join(*to, d.Folder))
		return nil
	case len(pos) == 2 && pos[0] == "verify":
		root := pos[1]
		checked, bad := 0, 0
		for _, n := range []string{"graffiti", "hotel"} {
			d := known[n]
			if _, err := os.Stat(filepath.Join(root, d.Folder)); err != nil {
				continue
			}
			checked++
			probs := d.Verify(root)
			for _, p := range probs {
				fmt.Fprintf(stdout, "%s: %s\n", p.Path, p.Reason)
			}
			bad += len(probs)
			if len(probs) == 0 {
				fmt.Fprintf(stdout, "%s: %d files OK\n", d.Name, len(d.Files))
			}
		}
		if checked == 0 {
			return fmt.Errorf("%s holds neither cmu-hotel/ nor graffiti/", root)
		}
		if bad > 0 {
			return fmt.Errorf("%d files missing or wrong", bad)
		}
		return nil
	}
	return cmdline.Usagef("want: datasets fetch hotel|graffiti -to DIR, or datasets verify DIR")
}
