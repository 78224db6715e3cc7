package pairwise

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

// exactH is a test Estimator: it fits H from the first four
// correspondences by solving the DLT, and calls inliers what H maps within
// the threshold; F and E are "not found", so model selection has H alone.
type exactH struct{ h [9]float64 }

func (e exactH) Estimate(kind ModelKind, a, b []geom.Point, thr float64) ([9]float64, []bool, bool, error) {
	in := make([]bool, len(a))
	if kind != Homography {
		return [9]float64{}, in, false, nil
	}
	for k := range a {
		in[k] = TransferError(e.h, a[k], b[k]) <= thr
	}
	return e.h, in, true, nil
}

// planarPair makes two views of n random points related by h, with
// descriptors that match their true partner and a fraction of wrong
// ratio matches.
func planarPair(n int, h [9]float64, wrong float64, rng *rand.Rand) ([]View, Pair) {
	const dim = 8
	v := []View{{}, {}}
	for k := 0; k < n; k++ {
		p := geom.Point{X: rng.Float64() * 600, Y: rng.Float64() * 400}
		w := h[6]*p.X + h[7]*p.Y + h[8]
		q := geom.Point{X: (h[0]*p.X + h[1]*p.Y + h[2]) / w, Y: (h[3]*p.X + h[4]*p.Y + h[5]) / w}
		v[0].Points = append(v[0].Points, p)
		v[1].Points = append(v[1].Points, q)
		for d := 0; d < dim; d++ {
			x := float32(rng.NormFloat64())
			v[0].Desc = append(v[0].Desc, x)
			v[1].Desc = append(v[1].Desc, x+float32(0.05*rng.NormFloat64()))
		}
	}
	// Ratio matches: the first half, of which a fraction wrong.
	pr := Pair{I: 0, J: 1}
	for k := 0; k < n/2; k++ {
		b := k
		if rng.Float64() < wrong {
			b = (k + 1 + rng.IntN(n-1)) % n
		}
		pr.Matches = append(pr.Matches, Match{A: int32(k), B: int32(b)})
	}
	return v, pr
}

func TestVerifyPlanar(t *testing.T) {
	h := [9]float64{1.1, 0.05, 20, -0.03, 0.95, 10, 1e-5, -2e-5, 1}
	for _, tc := range []struct {
		name     string
		n        int
		wrong    float64
		minRatio float64 // VerifyOptions.MinInlierRatio
		verified bool
	}{
		{"clean", 400, 0, 0, true},
		{"noisy", 400, 0.3, 0, true},
		{"too few", 14, 0, 0, false}, // 7 matches, below the floor of 8
		// About 20 right of 200: verified by default, as COLMAP does (its
		// min_inlier_ratio only bounds RANSAC's trials), rejected when a
		// minimum inlier ratio is asked for.
		{"mostly wrong", 400, 0.9, 0, true},
		{"mostly wrong, min inlier ratio 0.25", 400, 0.9, 0.25, false},
		{"too few right", 400, 0.97, 0, false}, // about 6 right of 200
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, uint64(tc.n)))
			views, pr := planarPair(tc.n, h, tc.wrong, rng)
			out, err := Verify(context.Background(), views, 8, []Pair{pr}, exactH{h}, VerifyOptions{Guided: true, MinInlierRatio: tc.minRatio}, VerifyRun{})
			if err != nil {
				t.Fatal(err)
			}
			v := out[0]
			if (v.Model != NoModel) != tc.verified {
				t.Fatalf("model %v, inliers %d of %d; want verified %v", v.Model, v.Inliers, v.Candidates, tc.verified)
			}
			if !tc.verified {
				if len(v.Matches) != 0 {
					t.Errorf("a rejected pair keeps %d matches", len(v.Matches))
				}
				return
			}
			// Guided matching recovers every true correspondence, the
			// unmatched half included, and nothing false.
			seenA, seenB := map[int32]bool{}, map[int32]bool{}
			for _, m := range v.Matches {
				if m.A != m.B {
					t.Errorf("wrong match %d-%d", m.A, m.B)
				}
				if seenA[m.A] || seenB[m.B] {
					t.Errorf("match %d-%d is not one-to-one", m.A, m.B)
				}
				seenA[m.A], seenB[m.B] = true, true
			}
			if len(v.Matches) < tc.n*95/100 {
				t.Errorf("%d guided and verified matches of %d true", len(v.Matches), tc.n)
			}
		})
	}
}

func TestVerifyDeterministicAcrossWorkers(t *testing.T) {
	h := [9]float64{1, 0, 5, 0, 1, -3, 0, 0, 1}
	rng := rand.New(rand.NewPCG(2, 2))
	views, pr := planarPair(300, h, 0.2, rng)
	pairs := []Pair{pr, pr, pr, pr}
	a, err := Verify(context.Background(), views, 8, pairs, exactH{h}, VerifyOptions{Guided: true}, VerifyRun{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Verify(context.Background(), views, 8, pairs, exactH{h}, VerifyOptions{Guided: true}, VerifyRun{Workers: 3})
	if err != nil {
		t.Fatal(err)
	}
	for k := range a {
		if len(a[k].Matches) != len(b[k].Matches) || a[k].Inliers != b[k].Inliers {
			t.Fatalf("pair %d differs between 1 and 3 workers", k)
		}
		for i := range a[k].Matches {
			if a[k].Matches[i] != b[k].Matches[i] {
				t.Fatalf("pair %d match %d differs", k, i)
			}
		}
	}
}

func TestVerifyOptionsValidate(t *testing.T) {
	for _, o := range []VerifyOptions{
		{Threshold: -1}, {Threshold: math.NaN()}, {MinInliers: -2}, {MinInlierRatio: 2}, {GuidedRatio: 1.5}, {HRatio: math.Inf(1)},
	} {
		if o.Validate() == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if (VerifyOptions{}).Validate() != nil {
		t.Error("zero options refused")
	}
}

func TestErrorsOfModels(t *testing.T) {
	// F of a pure horizontal translation: epipolar lines are rows, so the
	// Sampson error of (x, y) ↔ (x', y') is |y − y'|/√2.
	f := [9]float64{0, 0, 0, 0, 0, -1, 0, 1, 0}
	for _, tc := range []struct {
		a, b geom.Point
		want float64
	}{
		{geom.Point{X: 10, Y: 20}, geom.Point{X: 50, Y: 20}, 0},
		{geom.Point{X: 10, Y: 20}, geom.Point{X: 50, Y: 22}, 2 / math.Sqrt2},
	} {
		if got := SampsonError(f, tc.a, tc.b); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Sampson %v ↔ %v = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
	h := [9]float64{2, 0, 1, 0, 2, 1, 0, 0, 1}
	if got := TransferError(h, geom.Point{X: 1, Y: 1}, geom.Point{X: 3, Y: 7}); math.Abs(got-4) > 1e-12 {
		t.Errorf("transfer error %v, want 4", got)
	}
	inv, ok := geom.Inverse3(h)
	if !ok || TransferError(inv, geom.Point{X: 3, Y: 3}, geom.Point{X: 1, Y: 1}) > 1e-12 {
		t.Errorf("inverse %v (ok %v)", inv, ok)
	}
	if _, ok := geom.Inverse3([9]float64{1, 2, 3, 2, 4, 6, 0, 0, 1}); ok {
		t.Error("a singular matrix inverted")
	}
	// A valid homography scaled far down stays invertible: the test is
	// relative to the matrix's scale.
	var small [9]float64
	for k, v := range h {
		small[k] = v * 1e-5
	}
	if _, ok := geom.Inverse3(small); !ok {
		t.Error("a scaled homography counted singular")
	}
}

func TestGridLine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	var pts []geom.Point
	for k := 0; k < 2000; k++ {
		pts = append(pts, geom.Point{X: rng.Float64() * 1000, Y: rng.Float64() * 700})
	}
	g := geom.NewGrid(pts, 4)
	for _, l := range [][3]float64{{0.3, -1, 100}, {1, 0.1, -500}, {0, 1, -350}, {1, 0, 1e12}} {
		nrm := math.Hypot(l[0], l[1])
		found := map[int32]bool{}
		g.AlongLine(l, 3, func(k int32) { found[k] = true })
		for k, p := range pts {
			if d := math.Abs(l[0]*p.X+l[1]*p.Y+l[2]) / nrm; d <= 3 && !found[int32(k)] {
				t.Fatalf("line %v: point %d at distance %.2f missed", l, k, d)
			}
		}
	}
}

// masks is a test Estimator that returns fixed inlier masks: the first h
// matches for H, the first f (or those from f0 on) for F and E.
type masks struct{ h, f0, f int }

func (e masks) Estimate(kind ModelKind, a, b []geom.Point, thr float64) ([9]float64, []bool, bool, error) {
	in := make([]bool, len(a))
	lo, hi := 0, e.h
	if kind != Homography {
		lo, hi = e.f0, e.f
	}
	for k := lo; k < hi && k < len(in); k++ {
		in[k] = true
	}
	return [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, in, true, nil
}

// TestModelSelection: a pair H explains nearly as well as E keeps E's
// inliers (the depth off the plane) and is labelled planar, as COLMAP
// does; without intrinsics, or when E's support off the plane is thin, or
// H has the more inliers, H is the model.
func TestModelSelection(t *testing.T) {
	k := geom.Intrinsics{Fx: 500, Fy: 500, Cx: 300, Cy: 200}
	for _, tc := range []struct {
		name    string
		cam     geom.Intrinsics
		est     masks
		model   ModelKind
		planar  bool
		matches int
	}{
		{"calibrated, nearly planar, depth off the plane", k, masks{85, 0, 100}, Essential, true, 100},
		{"uncalibrated, nearly planar, PlanarH", geom.Intrinsics{}, masks{85, 0, 100}, Homography, true, 85},
		{"calibrated, H has more", k, masks{100, 0, 90}, Homography, true, 100},
		{"calibrated, thin support off the plane", k, masks{90, 0, 100}, Homography, true, 90},
		{"calibrated, not planar", k, masks{50, 0, 100}, Essential, false, 100},
		{"uncalibrated, not planar", geom.Intrinsics{}, masks{50, 30, 130}, Fundamental, false, 100},
		{"uncalibrated, nearly planar", geom.Intrinsics{}, masks{85, 0, 100}, Fundamental, true, 100},
		{"uncalibrated, H has more", geom.Intrinsics{}, masks{100, 0, 90}, Homography, true, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			views := make([]View, 2)
			pr := Pair{I: 0, J: 1}
			for i := range views {
				views[i].Intrinsics = tc.cam
				for n := 0; n < 200; n++ {
					views[i].Points = append(views[i].Points, geom.Point{X: float64(n), Y: float64(n % 7)})
					views[i].Desc = append(views[i].Desc, 1)
				}
			}
			for n := 0; n < 140; n++ {
				pr.Matches = append(pr.Matches, Match{A: int32(n), B: int32(n)})
			}
			opts := VerifyOptions{PlanarH: strings.HasSuffix(tc.name, "PlanarH")}
			out, err := Verify(context.Background(), views, 1, []Pair{pr}, tc.est, opts, VerifyRun{})
			if err != nil {
				t.Fatal(err)
			}
			v := out[0]
			if v.Model != tc.model || v.Planar != tc.planar || len(v.Matches) != tc.matches {
				t.Errorf("model %v, planar %v, %d matches; want %v, %v, %d", v.Model, v.Planar, len(v.Matches), tc.model, tc.planar, tc.matches)
			}
			if v.Planar && v.H == ([9]float64{}) {
				t.Error("a planar pair without its H")
			}
		})
	}
}

// clumpF is a test Estimator with no H whose F takes as inliers the
// matches of a in [0, 14) or [100, 114) whose b is also matched
// elsewhere in the input (a clump) or whose a is at least 100: an F with
// its epipole on the clump, as fits images of different scenes.
type clumpF struct{ all bool }

func (e clumpF) Estimate(kind ModelKind, a, b []geom.Point, thr float64) ([9]float64, []bool, bool, error) {
	in := make([]bool, len(a))
	if kind == Homography {
		return [9]float64{}, in, false, nil
	}
	times := map[geom.Point]int{}
	for _, p := range b {
		times[p]++
	}
	for k := range a {
		in[k] = e.all || a[k].X < 114 && (a[k].X >= 100 || times[b[k]] > 1)
	}
	return [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}, in, true, nil
}

// TestOneToOneCheck: a pair whose inliers pile into one feature of J is
// not verified by the clump (too few distinct features of J, or one-to-one
// candidates that do not verify on their own); a true pair with a few
// many-to-one inliers keeps its result; NoOneToOneCheck verifies all.
func TestOneToOneCheck(t *testing.T) {
	views := make([]View, 2)
	for i := range views {
		for n := 0; n < 200; n++ {
			views[i].Points = append(views[i].Points, geom.Point{X: float64(n), Y: float64(n % 7)})
		}
	}
	clump := func(n int) []Match { // n matches from a = 0.. into b = 150
		var ms []Match
		for k := 0; k < n; k++ {
			ms = append(ms, Match{A: int32(k), B: 150, Ratio: 0.5})
		}
		return ms
	}
	distinct := func(n int) []Match { // n matches a = 100+k into b = 1+k
		var ms []Match
		for k := 0; k < n; k++ {
			ms = append(ms, Match{A: int32(100 + k), B: int32(1 + k), Ratio: 0.6})
		}
		return ms
	}
	for _, tc := range []struct {
		name    string
		matches []Match
		est     clumpF
		want    int // matches of the verified pair; 0: rejected
	}{
		// 30 into one feature + 13 distinct inliers: 14 features of J.
		{"too few features of J", append(clump(30), distinct(20)[:13]...), clumpF{}, 0},
		// 15 features of J, but one-to-one only 14 inliers.
		{"one-to-one candidates fail", append(clump(30), distinct(20)...), clumpF{}, 0},
		// 40 distinct and 3 more into features already matched: kept whole.
		{"true pair, a few many-to-one", append(distinct(40)[:40:40], Match{A: 150, B: 1, Ratio: 0.7}, Match{A: 151, B: 2, Ratio: 0.7}, Match{A: 152, B: 3, Ratio: 0.7}), clumpF{all: true}, 43},
	} {
		for _, off := range []bool{false, true} {
			pr := Pair{I: 0, J: 1, Matches: tc.matches}
			opts := VerifyOptions{NoOneToOneCheck: off}
			out, err := Verify(context.Background(), views, 1, []Pair{pr}, tc.est, opts, VerifyRun{})
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if off {
				want = len(tc.est.inliers(views, tc.matches))
			}
			if got := len(out[0].Matches); got != want || (got == 0) != (out[0].Model == NoModel) {
				t.Errorf("%s, check off %v: %d matches, model %v; want %d", tc.name, off, got, out[0].Model, want)
			}
		}
	}
}

func (e clumpF) inliers(views []View, ms []Match) []Match {
	a := make([]geom.Point, len(ms))
	b := make([]geom.Point, len(ms))
	for k, m := range ms {
		a[k], b[k] = views[0].Points[m.A], views[1].Points[m.B]
	}
	_, in, _, _ := e.Estimate(Fundamental, a, b, 1)
	var out []Match
	for k, m := range ms {
		if in[k] {
			out = append(out, m)
		}
	}
	return out
}
