package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/pipeline"
)

const demoUsage = `demo [-out DIR] [-force] [-seed N] [-protocol both|verified|paper]

The embedded default, needing no data: renders a planar textured scene seen
from six views (known random homographies, brightness changes and noise), then
runs the whole pipeline on the images (SIFT, ratio matching, geometric
verification and guided matching, CLEAR), evaluates it against the homographies
exactly like Graffiti, prints the tables (verified and paper protocols) and
writes images/, report.json, problem.txt and overlays/ into DIR.`

func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o benchOptions
	fs := newFlags("demo", demoUsage, stderr)
	fs.StringVar(&o.out, "out", "demo-out", "output directory")
	fs.BoolVar(&o.force, "force", false, "write into a non-empty output directory")
	seed := fs.Uint64("seed", 1, "seed of the scene")
	views := fs.Int("views", 6, "number of views")
	fs.IntVar(&o.workers, "workers", 0, "parallel workers (0: GOMAXPROCS)")
	fs.StringVar(&o.protocol, "protocol", "both", "both, verified (clearmatch's default) or paper (the CLEAR paper's)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	o.minTrack = 2
	if *views < 2 || *views > 50 {
		return usagef("-views %d: want 2 to 50", *views)
	}
	stage, err := o.begin()
	if err != nil {
		return err
	}
	defer stage.Discard()
	fmt.Fprintf(stderr, "demo: rendering %d views of a synthetic planar scene\n", *views)
	scene, err := datasets.NewScene(datasets.SceneConfig{Views: *views, Seed: *seed})
	if err != nil {
		return err
	}
	imgDir := filepath.Join(stage.Dir, "images")
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
		if err := export.WriteFileAtomic(p, b.Bytes()); err != nil {
			return err
		}
		paths = append(paths, p)
	}
	pr := newProgress(stderr)
	b, err := pipeline.LoadHomography(ctx, "demo", paths, scene.H, o.workers, pr)
	if err != nil {
		return err
	}
	return runBenchmark(ctx, b, &o, stage, pr, stdout)
}
