//go:build cgo

package pipeline_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pipeline"
)

// A folder of images in, cycle-consistent tracks out. The folder here holds
// four rendered views of a textured plane.
func Example() {
	dir, _ := os.MkdirTemp("", "clearmatch-example")
	defer os.RemoveAll(dir)
	scene, _ := datasets.NewScene(datasets.SceneConfig{Views: 4, Seed: 7})
	for k, v := range scene.Views {
		var b bytes.Buffer
		png.Encode(&b, v)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("view%d.png", k+1)), b.Bytes(), 0o644)
	}

	images, err := pipeline.Images([]string{dir})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := pipeline.Run(context.Background(), images, geom.Intrinsics{}, pipeline.DefaultOptions())
	if err != nil {
		fmt.Println(err)
		return
	}
	tracks, matches := export.Build(res.Sets, res.Item)
	v := res.CountVerification()
	fmt.Printf("%d images, %d of %d pairs verified (model H: %d)\n", len(res.Images), v.Verified, v.Tried, v.Models["H"])
	distinct := true
	for _, t := range tracks.Tracks {
		seen := map[string]bool{}
		for _, o := range t.Observations {
			distinct = distinct && !seen[o.Image]
			seen[o.Image] = true
		}
	}
	fmt.Println("every track sees an image at most once:", distinct)
	fmt.Println("consistent matches found:", len(matches) > 1000)
	// Output:
	// 4 images, 6 of 6 pairs verified (model H: 6)
	// every track sees an image at most once: true
	// consistent matches found: true
}
