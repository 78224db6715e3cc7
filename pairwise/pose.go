package pairwise

import (
	"math"

	"github.com/clearmatch/clearmatch/geom"
)

// RelativePose returns the rotation R and unit baseline t of an essential
// matrix e (normalized coordinates, x_Jᵀ e x_I = 0) such that a scene point
// X in camera I's frame is R X + t in camera J's: of e's four
// decompositions, the one that puts the most matches a ↔ b (pixels of the
// cameras ci and cj) in front of both cameras. ok is false when e is
// degenerate, a camera is unknown or no match lies in front of both.
func RelativePose(e [9]float64, a, b []geom.Point, ci, cj geom.Intrinsics) (R [9]float64, t [3]float64, ok bool) {
	if len(a) != len(b) || !ci.Known() || !cj.Known() {
		return R, t, false
	}
	U, s, V, ok := geom.SVD3(e)
	if !ok || s[0] == 0 {
		return R, t, false
	}
	W := [9]float64{0, -1, 0, 1, 0, 0, 0, 0, 1}
	Vt := geom.Transpose3(V)
	rs := [2][9]float64{geom.Mul3(U, geom.Mul3(W, Vt)), geom.Mul3(U, geom.Mul3(geom.Transpose3(W), Vt))}
	u3 := [3]float64{U[2], U[5], U[8]}
	best := 0
	for _, r := range rs {
		for _, sg := range [2]float64{1, -1} {
			tt := [3]float64{sg * u3[0], sg * u3[1], sg * u3[2]}
			n := 0
			for k := range a {
				if inFront(r, tt, ci.Ray(a[k]), cj.Ray(b[k])) {
					n++
				}
			}
			if n > best {
				best, R, t = n, r, tt
			}
		}
	}
	return R, t, best > 0
}

// inFront reports whether the point seen along x in camera I and y in
// camera J (x_J ∝ R x_I + t) triangulates in front of both: d1 R x − d2 y
// = −t solved for the depths in least squares.
func inFront(R [9]float64, t, x, y [3]float64) bool {
	rx := geom.MulVec3(R, x)
	// Normal equations of [rx, -y] d = -t.
	a11, a12, a22 := geom.Dot(rx, rx), -geom.Dot(rx, y), geom.Dot(y, y)
	b1, b2 := -geom.Dot(rx, t), geom.Dot(y, t)
	det := a11*a22 - a12*a12
	if det <= 1e-12*a11*a22 {
		return false // parallel rays: no depth
	}
	d1 := (b1*a22 - a12*b2) / det
	d2 := (a11*b2 - a12*b1) / det
	return d1 > 0 && d2 > 0
}

// FitBaseline re-estimates an essential pair's model with its rotation
// held at R (x_J ∝ R x_I + t): the baseline direction t that the most
// matches a ↔ b fit within thr pixels (Sampson distance), by consensus
// over the two-match solutions t ∝ (R x₁ × y₁) × (R x₂ × y₂), then
// Levenberg–Marquardt on that consensus. It returns v with Matrix and F
// replaced and the number of matches within thr; ok is false for a pair
// that is not essential, fewer than 5 matches or no consensus.
//
// A rotation from elsewhere (the pair's triangles with other views) fixes
// what a weak pair's own matches leave loose: on a nearly planar pair the
// fitted E can turn by degrees and take in wrong matches it then agrees
// with.
func FitBaseline(v Verified, R [9]float64, a, b []geom.Point, ci, cj geom.Intrinsics, thr float64) (Verified, int, bool) {
	if v.Model != Essential || len(a) != len(b) || len(a) < 5 || !ci.Known() || !cj.Known() {
		return v, 0, false
	}
	n := make([][3]float64, len(a))
	for k := range a {
		x, y := ci.Ray(a[k]), cj.Ray(b[k])
		n[k] = geom.Cross(geom.MulVec3(R, x), y)
	}
	fOf := func(t [3]float64) [9]float64 { return essentialToFundamental(geom.Mul3(geom.Skew(t), R), ci, cj) }
	support := func(t [3]float64) int {
		f := fOf(t)
		c := 0
		for k := range a {
			if SampsonError(f, a[k], b[k]) <= thr {
				c++
			}
		}
		return c
	}
	// Candidate pairs of matches: all of them for a small pair, else a
	// fixed pseudo-random set (deterministic for the same matches).
	var best [3]float64
	bestN := -1
	try := func(k, l int) {
		t := geom.Cross(n[k], n[l])
		nt := math.Sqrt(geom.Dot(t, t))
		if nt < 1e-12 {
			return
		}
		for i := range t {
			t[i] /= nt
		}
		if c := support(t); c > bestN {
			bestN, best = c, t
		}
	}
	m := len(a)
	if m*(m-1)/2 <= 2000 {
		for k := 0; k < m; k++ {
			for l := k + 1; l < m; l++ {
				try(k, l)
			}
		}
	} else {
		state := uint64(m)*0x9e3779b97f4a7c15 + 1
		next := func() int {
			state ^= state << 13
			state ^= state >> 7
			state ^= state << 17
			return int(state % uint64(m))
		}
		for range 2000 {
			k, l := next(), next()
			if k != l {
				try(k, l)
			}
		}
	}
	if bestN < 5 {
		return v, 0, false
	}
	// Refine t over its two degrees of freedom on the consensus.
	f := fOf(best)
	var ia, ib []geom.Point
	for k := range a {
		if SampsonError(f, a[k], b[k]) <= thr {
			ia, ib = append(ia, a[k]), append(ib, b[k])
		}
	}
	b1, b2 := tangentBasis(best)
	tOf := func(p []float64) [3]float64 {
		var t [3]float64
		for k := range t {
			t[k] = best[k] + p[0]*b1[k] + p[1]*b2[k]
		}
		return t
	}
	res := func(p, r []float64) {
		f := fOf(tOf(p))
		for k := range ia {
			r[k] = signedSampson(f, ia[k], ib[k])
		}
	}
	if p, ok := levenbergMarquardt(res, []float64{0, 0}, len(ia)); ok {
		t := tOf(p)
		if nt := math.Sqrt(geom.Dot(t, t)); nt > 0 {
			for k := range t {
				t[k] /= nt
			}
			if c := support(t); c >= bestN {
				best, bestN = t, c
			}
		}
	}
	e := geom.Mul3(geom.Skew(best), R)
	f = fOf(best)
	if nf := frobenius(f); nf > 0 {
		for k := range f {
			f[k] /= nf
		}
	}
	if ne := frobenius(e); ne > 0 {
		for k := range e {
			e[k] /= ne
		}
	}
	v.Matrix, v.F = e, f
	return v, bestN, true
}
