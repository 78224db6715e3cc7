package tracks

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// reprojScene is five views (keypoint noise σ = noise px) (rotations the identity) of n points, each in
// one track of all five, with the true E of every pair as its verified
// model and K known; observation 0 of view 4 is moved 3 px across, which
// every pair's epipolar band of 3 px may still hold but the point the
// other four views fix does not.
func reprojScene(n int, noise float64) (*Views, Tracks, geom.Intrinsics) {
	rng := rand.New(rand.NewPCG(7, 8))
	K := geom.Intrinsics{Fx: 800, Fy: 800, Cx: 640, Cy: 480}
	centres := [5][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 0.8, 0}, {1, 1, 0.3}, {-0.8, 0.5, -0.2}}
	v := &Views{Threshold: 3}
	var pairs []pairwise.Verified
	for w := range 5 {
		v.Sets = append(v.Sets, &features.Set{Image: string(rune('a' + w)), Width: 1280, Height: 960})
	}
	for range n {
		x := [3]float64{rng.Float64()*8 - 4, rng.Float64()*6 - 3, 10 + rng.Float64()*6}
		for w := range 5 {
			y := [3]float64{x[0] - centres[w][0], x[1] - centres[w][1], x[2] - centres[w][2]}
			v.Sets[w].Keypoints = append(v.Sets[w].Keypoints, features.Keypoint{
				X: float32(K.Fx*y[0]/y[2] + K.Cx + noise*rng.NormFloat64()),
				Y: float32(K.Fy*y[1]/y[2] + K.Cy + noise*rng.NormFloat64())})
		}
	}
	for a := range 5 {
		for b := a + 1; b < 5; b++ {
			t := [3]float64{centres[a][0] - centres[b][0], centres[a][1] - centres[b][1], centres[a][2] - centres[b][2]}
			E := [9]float64{0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0}
			kinv := [9]float64{1 / K.Fx, 0, -K.Cx / K.Fx, 0, 1 / K.Fy, -K.Cy / K.Fy, 0, 0, 1}
			F := geom.Mul3(geom.Transpose3(kinv), geom.Mul3(E, kinv))
			pairs = append(pairs, pairwise.Verified{I: a, J: b, Model: pairwise.Essential, Matrix: E, F: F})
		}
	}
	v.Sets[4].Keypoints[0].X += 3
	item := make([]int, 5*n)
	for w := range 5 {
		for p := range n {
			item[w*n+p] = p
		}
	}
	return v, Tracks{Item: item, Solved: item, Keypoints: v.Sets, Pairs: pairs}, K
}

// TestFilterReproj: with the camera known, the one observation 3 px
// off its track's point leaves its track, and nothing else; the input
// Tracks are left as they were. Off, nothing changes; without a camera or a
// self-calibration, nothing is checked and the report says why.
func TestFilterReproj(t *testing.T) {
	const n = 60
	for _, tc := range []struct {
		name      string
		filter    float64
		camera    bool
		wantDrop  []int
		wantCheck bool
	}{
		{"off", 0, true, nil, false},
		{"1 px", 1, true, []int{4 * n}, true},
		{"5 px", 5, true, nil, true},
		{"no camera", 1, false, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, in, K := reprojScene(n, 0.05)
			item := slices.Clone(in.Item)
			if tc.camera {
				v.Intrinsics = K
			}
			out, st, err := FilterReproj(context.Background(), v, in, nil, ReprojOptions{Off: tc.filter == 0, Threshold: tc.filter})
			if err != nil {
				t.Fatal(err)
			}
			var dropped []int
			for g, it := range out.Item {
				if it < 0 {
					dropped = append(dropped, g)
				}
			}
			if !slices.Equal(dropped, tc.wantDrop) || st.Dropped != len(tc.wantDrop) {
				t.Errorf("dropped %v (count %d), want %v; %+v", dropped, st.Dropped, tc.wantDrop, st)
			}
			if got := st.Checked == 5*n && st.Registered == 5; got != tc.wantCheck {
				t.Errorf("checked %d observations, %d images placed: %+v", st.Checked, st.Registered, st)
			}
			if tc.filter > 0 && !tc.camera && st.Reason == "" {
				t.Error("nothing checked and no reason given")
			}
			if !slices.Equal(in.Item, item) {
				t.Error("the filter changed its input")
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v, in, K := reprojScene(n, 0.05)
	v.Intrinsics = K
	if _, _, err := FilterReproj(ctx, v, in, nil, ReprojOptions{}); err == nil {
		t.Error("no error from a cancelled context")
	}
}

// TestFilterReprojNoisy: with keypoints of σ = 0.5 px the cut moves
// to ReprojSigmas σ of the residuals (about 1.5 px) and takes out few right observations,
// where a 1 px cut would take out about 13%.
func TestFilterReprojNoisy(t *testing.T) {
	const n, sigma = 200, 0.5
	v, in, K := reprojScene(n, sigma)
	v.Intrinsics = K
	v.Sets[4].Keypoints[0].X += 10 // well beyond any cut
	out, st, err := FilterReproj(context.Background(), v, in, nil, ReprojOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Checked != 5*n {
		t.Fatalf("%+v", st)
	}
	// The residuals are smaller than the noise (each point is fitted to
	// its five observations): σ√(4/5) ≈ 0.45 px, a cut near 1.6 px.
	if st.Threshold < 1.3 || st.Threshold > 2 {
		t.Errorf("threshold %.2f px with σ = %.1f px keypoints (median %.3f)", st.Threshold, sigma, st.Median)
	}
	if st.Dropped < 1 || st.Dropped > 5*n/100 {
		t.Errorf("%d of %d observations taken out", st.Dropped, st.Checked)
	}
	if out.Item[4*n] != -1 {
		t.Error("the observation 10 px off stayed")
	}
	t.Logf("median %.3f px, threshold %.2f px, %d of %d taken out", st.Median, st.Threshold, st.Dropped, st.Checked)
}

// TestExtendTracks: tracks 1–9 lose their view-4 keypoint (it becomes a
// track of its own) and track 11 too, its keypoint's descriptor then
// replaced by another; the extension puts 1–9's back (each lies where its
// point projects, its descriptor alike) and leaves 11's out, and it adds
// nothing where a track already has its view (0's, 3 px off, is only
// dropped). Off, nothing joins.
func TestExtendTracks(t *testing.T) {
	const n = 60
	for _, tc := range []struct {
		name   string
		extend bool
		want   int
	}{
		{"on", true, 9},
		{"off", false, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, in, K := reprojScene(n, 0.05)
			v.Intrinsics = K
			rng := rand.New(rand.NewPCG(3, 4))
			desc := func() []float32 {
				d := make([]float32, features.DescSize)
				for i := range d {
					d[i] = float32(rng.IntN(90))
				}
				return d
			}
			point := make([][]float32, n)
			for p := range point {
				point[p] = desc()
			}
			for w, s := range v.Sets {
				for p := range n {
					d := point[p]
					if w == 4 && p == 11 {
						d = desc()
					}
					s.Desc = append(s.Desc, d...)
				}
			}
			in.Item = slices.Clone(in.Item)
			for p := 1; p <= 11; p++ {
				if p != 10 {
					in.Item[4*n+p] = n + p // a track of its own
				}
			}
			in.Solved = slices.Clone(in.Item)
			out, st, err := FilterReproj(context.Background(), v, in, nil, ReprojOptions{NoExtend: !tc.extend})
			if err != nil {
				t.Fatal(err)
			}
			if st.Extended != tc.want {
				t.Errorf("%d keypoints added, want %d: %+v", st.Extended, tc.want, st)
			}
			for p := 1; p <= 11; p++ {
				joined := out.Item[4*n+p] == p
				if want := tc.extend && p != 11 || p == 10; joined != want {
					t.Errorf("view 4's keypoint of point %d in its track: %v, want %v", p, joined, want)
				}
			}
			if out.Item[4*n] != -1 {
				t.Error("the observation 3 px off stayed")
			}
		})
	}
}
