//go:build cgo

package features

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/clearmatch/clearmatch/pairwise"
)

var graffitiNames = []string{"img1.ppm", "img2.ppm", "img3.ppm", "img4.ppm", "img5.ppm", "img6.ppm"}

// BenchmarkExtractGraffiti: SIFT on the six Graffiti images, no cache.
func BenchmarkExtractGraffiti(b *testing.B) {
	var paths []string
	for _, n := range graffitiNames {
		readData(b, "graffiti/"+n)
		paths = append(paths, filepath.Join(dataDir(b), "graffiti", n))
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			e := &Extractor{Workers: w}
			for i := 0; i < b.N; i++ {
				_, errs, _ := e.ExtractFiles(context.Background(), paths, graffitiNames)
				for _, err := range errs {
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(len(paths)*b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}

// BenchmarkMatchGraffiti: all 15 pairs of the six Graffiti images with the
// OpenCV matcher, and one pair with the pure-Go matcher for comparison.
func BenchmarkMatchGraffiti(b *testing.B) {
	sets := graffitiSets(b, graffitiNames...)
	desc := make([][]float32, len(sets))
	for i, s := range sets {
		desc[i] = s.Desc
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("opencv/workers=%d", w), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := pairwise.MatchAll(context.Background(), desc, DescSize, CVMatcher{}, pairwise.Options{Workers: w}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(15*b.N)/b.Elapsed().Seconds(), "pairs/s")
		})
	}
	b.Run("purego/one-pair", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := pairwise.MatchAll(context.Background(), desc[:2], DescSize, pairwise.BruteForce{}, pairwise.Options{Workers: 1}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
	})
}
