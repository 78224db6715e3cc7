package pipeline

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// weakScene is four views of n points in one track each, with the true
// F of every pair as its verified model; observation 0 of view 3 is moved
// 12 px along its epipolar line from view 0, so it fits pair (0, 3) but
// not (1, 3) or (2, 3).
func weakScene(n int) *Result {
	rng := rand.New(rand.NewPCG(5, 6))
	const f, cx, cy = 800.0, 640.0, 480.0
	centres := [4][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 0.8, 0}, {1, 1, 0.3}}
	proj := func(v int, x [3]float64) geom.Point {
		y := [3]float64{x[0] - centres[v][0], x[1] - centres[v][1], x[2] - centres[v][2]}
		return geom.Point{X: f*y[0]/y[2] + cx, Y: f*y[1]/y[2] + cy}
	}
	fund := func(a, b int) [9]float64 { // x_bᵀ F x_a = 0, identity rotations
		t := [3]float64{centres[a][0] - centres[b][0], centres[a][1] - centres[b][1], centres[a][2] - centres[b][2]}
		kinv := [9]float64{1 / f, 0, -cx / f, 0, 1 / f, -cy / f, 0, 0, 1}
		tx := [9]float64{0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0}
		return geom.Mul3(geom.Transpose3(kinv), geom.Mul3(tx, kinv))
	}
	r := &Result{PixelThreshold: 3}
	for v := range 4 {
		r.Sets = append(r.Sets, &features.Set{Image: string(rune('a' + v))})
	}
	for range n {
		x := [3]float64{rng.Float64()*8 - 4, rng.Float64()*6 - 3, 10 + rng.Float64()*6}
		for v := range 4 {
			p := proj(v, x)
			r.Sets[v].Keypoints = append(r.Sets[v].Keypoints, features.Keypoint{X: float32(p.X + 0.05*rng.NormFloat64()), Y: float32(p.Y + 0.05*rng.NormFloat64())})
		}
	}
	for a := range 4 {
		for b := a + 1; b < 4; b++ {
			F := fund(a, b)
			r.Verified = append(r.Verified, pairwise.Verified{I: a, J: b, Model: pairwise.Fundamental, Matrix: F, F: F})
		}
	}
	// Move view 3's observation 0 along the epipolar line of view 0's.
	k0, k3 := r.Sets[0].Keypoints[0], &r.Sets[3].Keypoints[0]
	l := geom.Mul3(fund(0, 3), [9]float64{float64(k0.X), 0, 0, float64(k0.Y), 0, 0, 1, 0, 0})
	d := math.Hypot(l[0], l[3])
	k3.X += float32(12 * -l[3] / d)
	k3.Y += float32(12 * l[0] / d)
	item := make([]int, 4*n)
	for v := range 4 {
		for p := range n {
			item[v*n+p] = p
		}
	}
	r.Clear = &clear.Result{Item: item}
	r.Item = item
	return r
}

// TestFilterWeakPairs: with every pair weak, the one observation off its
// epipolar lines from two views leaves its track, and nothing else; CLEAR's
// own item is left as it was. With the filter off, or no pair weak, nothing
// changes.
func TestFilterWeakPairs(t *testing.T) {
	const n = 40
	for _, tc := range []struct {
		name      string
		weakPairs int
		wantDrop  []int // global indices
		wantPairs int
	}{
		{"off", 0, nil, 0},
		{"no weak pair", n - 1, nil, 0},
		{"all weak", 300, []int{3 * n}, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := weakScene(n)
			clearItem := slices.Clone(r.Clear.Item)
			if err := r.filterWeakPairs(context.Background(), Options{WeakPairs: tc.weakPairs}); err != nil {
				t.Fatal(err)
			}
			var dropped []int
			for g, it := range r.Item {
				if it < 0 {
					dropped = append(dropped, g)
				}
			}
			if !slices.Equal(dropped, tc.wantDrop) || r.Weak.Dropped != len(tc.wantDrop) || r.Weak.Pairs != tc.wantPairs {
				t.Errorf("dropped %v (count %d), %d pairs refitted; want %v, %d", dropped, r.Weak.Dropped, r.Weak.Pairs, tc.wantDrop, tc.wantPairs)
			}
			if !slices.Equal(r.Clear.Item, clearItem) {
				t.Error("the filter changed CLEAR's item")
			}
		})
	}
}

// TestFilterWeakPairsCancelled: a cancelled context stops the filter.
func TestFilterWeakPairsCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := weakScene(20).filterWeakPairs(ctx, Options{WeakPairs: 300}); err == nil {
		t.Error("no error from a cancelled context")
	}
}

// TestWeakPairsOptions: the SfM default runs the weak-pair filter at
// DefaultWeakThreshold; the matching benchmarks and the paper's protocol
// score CLEAR's own tracks and run it not.
func TestWeakPairsOptions(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		want int
	}{
		{"default", DefaultOptions(), DefaultWeakPairs},
		{"benchmark", BenchmarkOptions(), 0},
		{"paper", PaperOptions(), 0},
	} {
		if tc.opts.WeakPairs != tc.want || tc.opts.WeakThreshold != 0 {
			t.Errorf("%s: WeakPairs %d, WeakThreshold %v; want %d, 0 (DefaultWeakThreshold)", tc.name, tc.opts.WeakPairs, tc.opts.WeakThreshold, tc.want)
		}
	}
	if DefaultWeakThreshold != 1.5 {
		t.Errorf("DefaultWeakThreshold %v, want the measured 1.5 px", DefaultWeakThreshold)
	}
}
