//go:build cgo

package features

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
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

// BenchmarkMatcher: one pair of real RootSIFT descriptor sets (fountain-p11
// photos 0 and 1 at 1536 px, SIFT contrast 0.02, the pipeline's default),
// capped at 2k, 8k and 16k features, one direction as the ratio test runs,
// with OpenCV's brute-force matcher, the BLAS matcher and, at 2k, the
// pure-Go reference. One worker; pairs/s is per core.
func BenchmarkMatcher(b *testing.B) {
	var sets []*Set
	for _, n := range []string{"0000.jpg", "0001.jpg"} {
		s, err := Extract(n, readData(b, "fountain-p11/images/"+n), Options{ContrastThreshold: 0.02, MaxDim: 1536, RootSIFT: true})
		if err != nil {
			b.Fatal(err)
		}
		sets = append(sets, s)
	}
	b.Logf("features: %d and %d", sets[0].Len(), sets[1].Len())
	SetNumThreads(1) // one core each, as the pipeline runs them
	defer SetNumThreads(0)
	matchers := []struct {
		name string
		m    pairwise.Matcher
	}{{"opencv", CVMatcher{}}, {"blas", BLASMatcher{Float32: true}}, {"int8", BLASMatcher{}}, {"purego", pairwise.BruteForce{}}}
	for _, n := range []int{2000, 8000, 16000} {
		desc := [][]float32{sets[0].Desc[:min(n, sets[0].Len())*DescSize], sets[1].Desc[:min(n, sets[1].Len())*DescSize]}
		for _, m := range matchers {
			if m.name == "int8" && !strings.HasPrefix(MatcherProducts(), "int8") {
				continue
			}
			if m.name == "purego" && n > 2000 {
				continue
			}
			b.Run(fmt.Sprintf("features=%d/%s", n, m.name), func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := pairwise.MatchAll(context.Background(), desc, DescSize, m.m, pairwise.Options{Workers: 1}); err != nil {
						b.Fatal(err)
					}
				}
				pairs := float64(b.N) / b.Elapsed().Seconds()
				b.ReportMetric(pairs, "pairs/s")
				// An exact 2-NN search by products costs 2·n₁·n₂·128 FLOP;
				// scripts/sgemm-peak.sh gives OpenBLAS's rate to compare.
				flop := 2 * float64(len(desc[0])/DescSize) * float64(len(desc[1])/DescSize) * DescSize
				b.ReportMetric(pairs*flop/1e9, "GFLOP/s")
			})
		}
	}
}
