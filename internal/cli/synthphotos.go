package cli

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/internal/pool"
)

const synthPhotosUsage = `synth-photos -views N -out DIR [-force] [flags]

Renders a long planar textured strip seen by N cameras moving along it
(known homographies, brightness changes, noise), for measuring pair
selection and the pipeline at scale: DIR/images/ holds the PNG views and
DIR/true_pairs.txt every pair of views that overlap by at least
-min-overlap ("name_a name_b overlap", overlap the smaller of the two
directions' shared fraction), and DIR/views.txt each view's homography
from its pixels to the strip's plane ("name h11 h12 ... h33"), which
scores a match or a track. Names are shuffled hex digests unless
-ordered (then view00000.png, ... in path order). Rendering runs on all
cores; scripts/scale-bench.sh runs match on the result and scores it.`

func runSynthPhotos(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("synth-photos", synthPhotosUsage, stdout)
	out := fs.String("out", "", "output directory (required)")
	force := fs.Bool("force", false, "write into a non-empty output directory")
	views := fs.Int("views", 100, "number of views")
	width := fs.Int("width", 1024, "view width, pixels")
	height := fs.Int("height", 768, "view height, pixels")
	seed := fs.Uint64("seed", 1, "seed of the scene")
	ordered := fs.Bool("ordered", false, "name the views in path order (view00000.png, ...)")
	minOverlap := fs.Float64("min-overlap", 0.25, "overlap of a true pair")
	if err := cmdline.ParseFlags(fs, args); err != nil {
		return err
	}
	switch {
	case *out == "":
		return cmdline.Usagef("-out is required")
	case *views < 2 || *views > 100000:
		return cmdline.Usagef("-views %d: want 2 to 100000", *views)
	case *width < 64 || *height < 64 || *width > 8192 || *height > 8192:
		return cmdline.Usagef("-width %d -height %d: want 64 to 8192", *width, *height)
	case !(*minOverlap > 0 && *minOverlap <= 1):
		return cmdline.Usagef("-min-overlap %v: want a fraction in (0, 1]", *minOverlap)
	}
	strip, err := datasets.NewStrip(datasets.StripConfig{Views: *views, Width: *width, Height: *height, Seed: *seed})
	if err != nil {
		return err
	}
	stage, err := cmdline.NewStage(*out, *force)
	if err != nil {
		return err
	}
	defer stage.Discard()
	imgDir := filepath.Join(stage.Dir, "images")
	if err := os.MkdirAll(imgDir, 0o755); err != nil {
		return err
	}
	names := stripNames(*views, *seed, *ordered)
	pr := cmdline.NewProgress(stderr)
	err = pool.ForEach(ctx, *views, 0, func(done, total int) { pr.Update("render", done, total) }, func(k int) error {
		var b bytes.Buffer
		if err := png.Encode(&b, strip.Render(k)); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(imgDir, names[k]), b.Bytes(), 0o644)
	})
	if err != nil {
		return err
	}
	var tp strings.Builder
	fmt.Fprintf(&tp, "# synth-photos -views %d -width %d -height %d -seed %d: pairs overlapping by at least %g\n", *views, *width, *height, *seed, *minOverlap)
	n := 0
	for i := 0; i < *views; i++ {
		for j := i + 1; j < *views; j++ {
			// Views more than two widths apart along the path cannot overlap.
			if float64(j-i)*float64(*width)/6 > 2.5*float64(*width) {
				break
			}
			if o := min(strip.Overlap(i, j), strip.Overlap(j, i)); o >= *minOverlap {
				fmt.Fprintf(&tp, "%s %s %.3f\n", names[i], names[j], o)
				n++
			}
		}
	}
	var vs strings.Builder
	fmt.Fprintf(&vs, "# synth-photos -views %d -width %d -height %d -seed %d: each view's homography from its pixels to the strip's plane, row-major\n", *views, *width, *height, *seed)
	for k, name := range names {
		vs.WriteString(name)
		for _, v := range strip.ToStrip(k) {
			vs.WriteByte(' ')
			vs.WriteString(strconv.FormatFloat(v, 'g', -1, 64))
		}
		vs.WriteByte('\n')
	}
	if err := cmdline.WriteFiles(stage.Dir, map[string][]byte{"true_pairs.txt": []byte(tp.String()), "views.txt": []byte(vs.String())}); err != nil {
		return err
	}
	if err := stage.Publish(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "synth-photos: %d views and %d true pairs in %s\n", *views, n, *out)
	return nil
}

// stripNames names the views: in path order, or shuffled digests so that
// the name order says nothing about the path.
func stripNames(n int, seed uint64, ordered bool) []string {
	out := make([]string, n)
	for k := range out {
		if ordered {
			out[k] = fmt.Sprintf("view%05d.png", k)
		} else {
			z := (uint64(k)+1)*0x9e3779b97f4a7c15 ^ seed*0xbf58476d1ce4e5b9
			z = (z ^ z>>31) * 0x94d049bb133111eb
			out[k] = fmt.Sprintf("%016x.png", z^z>>29)
		}
	}
	return out
}
