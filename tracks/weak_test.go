package tracks

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// weakScene is four views of n points in one track each, with the true
// F of every pair as its verified model; observation 0 of view 3 is moved
// 12 px along its epipolar line from view 0, so it fits pair (0, 3) but
// not (1, 3) or (2, 3).
func weakScene(n int) (*Views, Tracks) {
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
	v := &Views{Threshold: 3}
	var pairs []pairwise.Verified
	for w := range 4 {
		v.Sets = append(v.Sets, &features.Set{Image: string(rune('a' + w))})
	}
	for range n {
		x := [3]float64{rng.Float64()*8 - 4, rng.Float64()*6 - 3, 10 + rng.Float64()*6}
		for w := range 4 {
			p := proj(w, x)
			v.Sets[w].Keypoints = append(v.Sets[w].Keypoints, features.Keypoint{X: float32(p.X + 0.05*rng.NormFloat64()), Y: float32(p.Y + 0.05*rng.NormFloat64())})
		}
	}
	for a := range 4 {
		for b := a + 1; b < 4; b++ {
			F := fund(a, b)
			pairs = append(pairs, pairwise.Verified{I: a, J: b, Model: pairwise.Fundamental, Matrix: F, F: F})
		}
	}
	// Move view 3's observation 0 along the epipolar line of view 0's.
	k0, k3 := v.Sets[0].Keypoints[0], &v.Sets[3].Keypoints[0]
	l := geom.Mul3(fund(0, 3), [9]float64{float64(k0.X), 0, 0, float64(k0.Y), 0, 0, 1, 0, 0})
	d := math.Hypot(l[0], l[3])
	k3.X += float32(12 * -l[3] / d)
	k3.Y += float32(12 * l[0] / d)
	item := make([]int, 4*n)
	for w := range 4 {
		for p := range n {
			item[w*n+p] = p
		}
	}
	return v, Tracks{Item: item, Solved: item, Keypoints: v.Sets, Pairs: pairs}
}

// TestFilterWeak: with every pair weak, the one observation off its
// epipolar lines from two views leaves its track, and nothing else; the
// input Tracks are left as they were. With the filter off, or no pair
// weak, nothing changes.
func TestFilterWeak(t *testing.T) {
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
			v, in := weakScene(n)
			item, pairs := slices.Clone(in.Item), slices.Clone(in.Pairs)
			out, st, err := FilterWeak(context.Background(), v, in, WeakOptions{Off: tc.weakPairs == 0, Matches: tc.weakPairs})
			if err != nil {
				t.Fatal(err)
			}
			var dropped []int
			for g, it := range out.Item {
				if it < 0 {
					dropped = append(dropped, g)
				}
			}
			if !slices.Equal(dropped, tc.wantDrop) || st.Dropped != len(tc.wantDrop) || st.Pairs != tc.wantPairs {
				t.Errorf("dropped %v (count %d), %d pairs refitted; want %v, %d", dropped, st.Dropped, st.Pairs, tc.wantDrop, tc.wantPairs)
			}
			if !slices.Equal(in.Item, item) || !slices.EqualFunc(in.Pairs, pairs, func(a, b pairwise.Verified) bool { return a.Matrix == b.Matrix }) {
				t.Error("the filter changed its input")
			}
		})
	}
}

// TestFilterWeakCancelled: a cancelled context stops the filter.
func TestFilterWeakCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, in := weakScene(20)
	if _, _, err := FilterWeak(ctx, v, in, WeakOptions{}); err == nil {
		t.Error("no error from a cancelled context")
	}
}

// TestFilterWeakOff: with the filter off and the rotation-loop check
// needing intrinsics it has not, the stage returns its input as it is.
func TestFilterWeakOff(t *testing.T) {
	v, in := weakScene(10)
	out, st, err := FilterWeak(context.Background(), v, in, WeakOptions{Off: true})
	if err != nil || st != (WeakStats{}) || &out.Item[0] != &in.Item[0] || &out.Pairs[0] != &in.Pairs[0] {
		t.Errorf("err %v, stats %+v, or a new Tracks", err, st)
	}
}
