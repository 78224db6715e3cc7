package cli

import (
	"context"
	"errors"
	"fmt"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const cacheUsage = `cache [-dir DIR] [-clean]

Shows where match keeps its cache (features per image, and each pair's
matches and verification in pairs/) and how large it is; -clean removes it.
The cache is keyed by image content and parameters, so removing it only
costs time: the next run computes again what it needs.`

func runCache(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	flags := cmdline.NewFlags("cache", cacheUsage, stdout)
	dir := flags.String("dir", cmdline.DefaultCacheDir(), "the cache folder (match's -cache)")
	clean := flags.Bool("clean", false, "remove the cache folder and everything in it")
	if err := cmdline.ParseFlags(flags, args); err != nil {
		return err
	}
	if *dir == "" {
		return cmdline.Usagef("no cache folder: the system names none; give -dir")
	}
	// The folder is checked before it is walked: a mistaken -dir (/, say)
	// is refused at once, not after a walk of everything below it.
	err := isCache(*dir)
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stdout, "%s: no cache yet\n", *dir)
		return nil
	}
	if err != nil {
		return err
	}
	features, pairs, err := cacheSize(*dir)
	if err != nil {
		return err
	}
	if !*clean {
		fmt.Fprintf(stdout, "%s: %s in all (features %s in %s, pairs/ %s in %s)\n",
			*dir, size(features.bytes+pairs.bytes), size(features.bytes), cmdline.Plural(features.files, "file"), size(pairs.bytes), cmdline.Plural(pairs.files, "file"))
		return nil
	}
	if err := os.RemoveAll(*dir); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: removed (%s)\n", *dir, size(features.bytes+pairs.bytes))
	return nil
}

// usage counts files and bytes.
type usage struct {
	files int
	bytes int64
}

// isCache refuses a folder that holds anything but what match's cache
// writes (NAME.feat files, their temporary files, pairs/), so that -clean
// never removes a folder given by mistake.
func isCache(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		n := e.Name()
		switch {
		case e.IsDir() && n == "pairs":
		case !e.IsDir() && (strings.HasSuffix(n, ".feat") || strings.HasPrefix(n, ".tmp-")):
		default:
			return fmt.Errorf("%s holds %s, which match's cache does not write: not a clearmatch cache, left alone", dir, n)
		}
	}
	return nil
}

// cacheSize adds up the cache's files: features at the top, pairs below
// pairs/.
func cacheSize(dir string) (features, pairs usage, err error) {
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		u := &features
		if rel, _ := filepath.Rel(dir, p); filepath.Dir(rel) != "." {
			u = &pairs
		}
		u.files++
		u.bytes += info.Size()
		return nil
	})
	return features, pairs, err
}

// size writes a byte count for a person: 456.7 MB.
func size(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n), "kMGTPE"
	i := -1
	for v >= unit && i < len(suffix)-1 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %cB", v, suffix[i])
}
