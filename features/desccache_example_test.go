//go:build cgo

package features_test

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"os"
	"path/filepath"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/features"
)

// Extraction with a feature cache and a DescriptorCache: every set is
// released as soon as it is in the cache, and at most the budget's worth
// of descriptors (here one image's) stays in memory; the others are read
// back from the cache when asked for.
func ExampleDescriptorCache() {
	dir, _ := os.MkdirTemp("", "clearmatch-example")
	defer os.RemoveAll(dir)
	strip, _ := datasets.NewStrip(datasets.StripConfig{Views: 3, Width: 320, Height: 240, Seed: 1})
	var paths, names []string
	for k := 0; k < strip.Views(); k++ {
		var b bytes.Buffer
		png.Encode(&b, strip.Render(k))
		name := fmt.Sprintf("v%d.png", k)
		paths, names = append(paths, filepath.Join(dir, name)), append(names, name)
		os.WriteFile(paths[k], b.Bytes(), 0o644)
	}
	dc := features.NewDescriptorCache(1) // bytes: always just the last image used
	ex := &features.Extractor{CacheDir: filepath.Join(dir, "cache"), Compact: true, Descriptors: dc}
	sets, errs, _ := ex.ExtractFiles(context.Background(), paths, names)
	for i, s := range sets {
		if errs[i] != nil {
			fmt.Println(errs[i])
			return
		}
		d, err := s.DescriptorBytes()
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(s.Image, s.Released(), len(d) == s.Len()*features.DescSize, dc.Used() == int64(len(d)))
	}
	// Output:
	// v0.png true true true
	// v1.png true true true
	// v2.png true true true
}
