package pairwise

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

// refitScene is two views of random points (cameras as in
// newCompleteScene's), the true F and E from view 0 to view 1, and the
// observed points with Gaussian noise of sigma pixels.
func refitScene(n int, sigma float64, rng *rand.Rand) (cam geom.Intrinsics, e, f [9]float64, a, b, ta, tb []geom.Point) {
	cam = geom.Intrinsics{Fx: 800, Fy: 800, Cx: 640, Cy: 480}
	r1 := geom.Mul3(rotY(0.2), rodrigues(0.03, 0, 0.02))
	t1 := [3]float64{-1, 0.1, 0.2} // t = −R C
	e = geom.Mul3(geom.Skew(t1), r1)
	f = essentialToFundamental(e, cam, cam)
	for range n {
		x := [3]float64{rng.Float64()*8 - 4, rng.Float64()*6 - 3, 10 + rng.Float64()*6}
		var y [3]float64
		for r := range 3 {
			y[r] = r1[3*r]*x[0] + r1[3*r+1]*x[1] + r1[3*r+2]*x[2] + t1[r]
		}
		p := geom.Point{X: cam.Fx*x[0]/x[2] + cam.Cx, Y: cam.Fy*x[1]/x[2] + cam.Cy}
		q := geom.Point{X: cam.Fx*y[0]/y[2] + cam.Cx, Y: cam.Fy*y[1]/y[2] + cam.Cy}
		ta, tb = append(ta, p), append(tb, q)
		a = append(a, geom.Point{X: p.X + sigma*rng.NormFloat64(), Y: p.Y + sigma*rng.NormFloat64()})
		b = append(b, geom.Point{X: q.X + sigma*rng.NormFloat64(), Y: q.Y + sigma*rng.NormFloat64()})
	}
	return cam, e, f, a, b, ta, tb
}

func rmsSampson(f [9]float64, a, b []geom.Point) float64 {
	s := 0.0
	for k := range a {
		d := SampsonError(f, a[k], b[k])
		s += d * d
	}
	return math.Sqrt(s / float64(len(a)))
}

// TestRefit: from a model a few tenths of a degree off (E) or perturbed
// out of rank 2 (F), the refit fits the noisy matches to about their
// noise and lies closer to the true geometry than the start (measured on
// the noise-free points); E stays an essential matrix (two equal singular
// values, one zero) and F has rank 2.
func TestRefit(t *testing.T) {
	const sigma = 0.3
	for _, kind := range []ModelKind{Essential, Fundamental} {
		t.Run(kind.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(7, uint64(kind)))
			cam, e, f, a, b, ta, tb := refitScene(60, sigma, rng)
			v := Verified{I: 0, J: 1, Model: kind}
			switch kind {
			case Essential:
				r, tt, _ := decomposeEssential(e)
				tt[1] += 0.01
				v.Matrix = geom.Mul3(geom.Skew(tt), geom.Mul3(rodrigues(0, 0.004, 0.003), r))
				v.F = essentialToFundamental(v.Matrix, cam, cam)
			case Fundamental:
				// Perturbed where its entries are of one scale: on
				// Hartley-normalized points.
				T1, T2 := hartley(a), hartley(b)
				T1i, _ := geom.Inverse3(T1)
				T2i, _ := geom.Inverse3(T2)
				fn := geom.Mul3(geom.Transpose3(T2i), geom.Mul3(f, T1i))
				n := frobenius(fn)
				for k := range fn {
					fn[k] += n * 1e-2 * rng.NormFloat64()
				}
				v.Matrix = geom.Mul3(geom.Transpose3(T2), geom.Mul3(fn, T1))
				v.F = v.Matrix
			}
			before, truthBefore := rmsSampson(v.F, a, b), rmsSampson(v.F, ta, tb)
			got, ok := Refit(v, a, b, cam, cam)
			if !ok {
				t.Fatal("Refit failed")
			}
			after, truthAfter := rmsSampson(got.F, a, b), rmsSampson(got.F, ta, tb)
			t.Logf("noisy matches %.3f -> %.3f px, noise-free %.3f -> %.3f px", before, after, truthBefore, truthAfter)
			if after >= before || after > 1.2*sigma {
				t.Errorf("RMS Sampson %.3f -> %.3f px, want a fit near the noise (%.1f px)", before, after, sigma)
			}
			if truthAfter >= truthBefore/2 {
				t.Errorf("noise-free points %.3f -> %.3f px from the model: the refit is not closer to the truth", truthBefore, truthAfter)
			}
			_, s, _, _ := geom.SVD3(got.Matrix)
			if s[2] > 1e-9*s[0] || kind == Essential && math.Abs(s[0]-s[1]) > 1e-9*s[0] {
				t.Errorf("singular values %v: not a valid %v", s, kind)
			}
			if got.Model != kind || got.I != 0 || got.J != 1 {
				t.Errorf("Refit changed the pair: %+v", got)
			}
		})
	}
}

// TestRefitRefuses: a homography, fewer than 8 matches, matches of
// different lengths, E without intrinsics.
func TestRefitRefuses(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cam, e, f, a, b, _, _ := refitScene(20, 0.3, rng)
	for _, tc := range []struct {
		name string
		v    Verified
		a, b []geom.Point
		cam  geom.Intrinsics
	}{
		{"homography", Verified{Model: Homography, Matrix: [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}}, a, b, cam},
		{"rejected", Verified{}, a, b, cam},
		{"7 matches", Verified{Model: Fundamental, Matrix: f, F: f}, a[:7], b[:7], cam},
		{"lengths", Verified{Model: Fundamental, Matrix: f, F: f}, a, b[:10], cam},
		{"E without camera", Verified{Model: Essential, Matrix: e, F: f}, a, b, geom.Intrinsics{}},
		{"zero F", Verified{Model: Fundamental}, a, b, cam},
	} {
		got, ok := Refit(tc.v, tc.a, tc.b, tc.cam, tc.cam)
		if changed := got.Matrix != tc.v.Matrix || got.F != tc.v.F; ok || changed {
			t.Errorf("%s: Refit = %v, model changed %v; want it refused and unchanged", tc.name, ok, changed)
		}
	}
}
