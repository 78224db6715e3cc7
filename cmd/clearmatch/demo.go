package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/features"
)

const demoUsage = `demo [-out DIR] [-force] [-seed N]

The embedded default, needing no data: renders a planar textured scene seen
from six views (known random homographies, brightness changes and noise), then
runs the whole pipeline on the images (SIFT, all-pairs ratio matching, CLEAR),
evaluates it against the homographies exactly like Graffiti, prints the table
(input, transitive closure, pruned closure, CLEAR) and writes images/,
report.json, problem.txt and overlays/ into DIR.`

func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlags("demo", demoUsage, stderr)
	out := fs.String("out", "demo-out", "output directory")
	force := fs.Bool("force", false, "write into a non-empty output directory")
	seed := fs.Uint64("seed", 1, "seed of the scene")
	views := fs.Int("views", 6, "number of views")
	workers := fs.Int("workers", 0, "parallel workers (0: GOMAXPROCS)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *views < 2 || *views > 50 {
		return usagef("-views %d: want 2 to 50", *views)
	}
	if err := prepareOutDir(*out, *force); err != nil {
		return err
	}
	timing := map[string]float64{}
	t0 := time.Now()
	fmt.Fprintf(stderr, "demo: rendering %d views of a synthetic planar scene\n", *views)
	scene, err := datasets.NewScene(datasets.SceneConfig{Views: *views, Seed: *seed})
	if err != nil {
		return err
	}
	imgDir := filepath.Join(*out, "images")
	if err := os.MkdirAll(imgDir, 0o755); err != nil {
		return err
	}
	var paths []string
	for k, v := range scene.Views {
		var b bytes.Buffer
		if err := png.Encode(&b, v); err != nil {
			return err
		}
		p := filepath.Join(imgDir, fmt.Sprintf("view%d.png", k+1))
		if err := writeFileAtomic(p, b.Bytes()); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	timing["render"] = time.Since(t0).Seconds()
	t1 := time.Now()
	d, err := homographyEval(ctx, paths, scene.H, features.Options{}, *workers, stderr)
	if err != nil {
		return err
	}
	timing["features"] = time.Since(t1).Seconds()
	return runEvaluation(ctx, "demo", d, *out, 2, *workers, nil, timing, stdout, stderr)
}
