package calib

import (
	"context"
	"testing"
)

// BenchmarkEstimate: 11 views, 20000 tracks, the size of fountain-p11's
// (1536 px) after MaxPoints.
func BenchmarkEstimate(b *testing.B) { benchEstimate(b, 11, 20000) }

// BenchmarkEstimateManyViews: 40 views (Options.MaxViews), 3000 tracks,
// the shape of a large folder's calibration (CMU Hotel: 40 of 101 images,
// 714 points).
func BenchmarkEstimateManyViews(b *testing.B) { benchEstimate(b, 40, 3000) }

func benchEstimate(b *testing.B, views, points int) {
	tracks, rots := scene(SimpleRadial{Focal: 1380, Cx: 760, Cy: 503}, views, points, 0.3, 0.5, 1)
	o := Options{Width: 1536, Height: 1024}
	b.ResetTimer()
	for range b.N {
		if _, err := Estimate(context.Background(), views, tracks, rots, o); err != nil {
			b.Fatal(err)
		}
	}
}
