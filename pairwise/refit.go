package pairwise

import (
	"math"

	"github.com/clearmatch/clearmatch/geom"
)

// Refit re-estimates a verified pair's essential or fundamental matrix on
// the matches a (in image v.I) ↔ b (in v.J), pixels: the model that
// minimizes their Sampson distances, by Levenberg–Marquardt over the
// model's own degrees of freedom, started from v's model. E keeps its form
// (a rotation and a baseline direction, 5 degrees of freedom, with the
// cameras ci and cj of v.I and v.J); F keeps rank 2 (7 degrees of freedom,
// on Hartley-normalized points). The result is v with Matrix and F
// replaced. ok is false for a homography or rejected pair, fewer than 8
// matches, or a fit that does not lower the error.
//
// Verification fits the model to the keypoints as detected and stops at a
// consensus; after refinement has moved the keypoints, the model fitted to
// them is tighter, and on a pair of few matches the difference decides
// which matches look wrong.
func Refit(v Verified, a, b []geom.Point, ci, cj geom.Intrinsics) (Verified, bool) {
	if len(a) != len(b) || len(a) < 8 {
		return v, false
	}
	var model func(p []float64) [9]float64
	var p0 []float64
	switch v.Model {
	case Essential:
		if !ci.Known() || !cj.Known() {
			return v, false
		}
		R0, t0, ok := decomposeEssential(v.Matrix)
		if !ok {
			return v, false
		}
		b1, b2 := tangentBasis(t0)
		p0 = make([]float64, 5)
		model = func(p []float64) [9]float64 {
			R := geom.Mul3(rodrigues(p[0], p[1], p[2]), R0)
			var t [3]float64
			for k := range t {
				t[k] = t0[k] + p[3]*b1[k] + p[4]*b2[k]
			}
			return geom.Mul3(geom.Skew(t), R)
		}
	case Fundamental:
		T1, T2 := hartley(a), hartley(b)
		T1i, ok1 := geom.Inverse3(T1)
		T2i, ok2 := geom.Inverse3(T2)
		if !ok1 || !ok2 {
			return v, false
		}
		fn := geom.Mul3(geom.Transpose3(T2i), geom.Mul3(v.Matrix, T1i))
		U, s, V, ok := geom.SVD3(fn)
		if !ok || s[0] == 0 {
			return v, false
		}
		p0 = make([]float64, 7)
		p0[6] = s[1] / s[0]
		model = func(p []float64) [9]float64 {
			u := geom.Mul3(U, rodrigues(p[0], p[1], p[2]))
			w := geom.Mul3(V, rodrigues(p[3], p[4], p[5]))
			d := [9]float64{1, 0, 0, 0, p[6], 0, 0, 0, 0}
			return geom.Mul3(geom.Transpose3(T2), geom.Mul3(geom.Mul3(u, geom.Mul3(d, geom.Transpose3(w))), T1))
		}
	default:
		return v, false
	}
	return finishRefit(v, a, b, ci, cj, model, p0)
}

// finishRefit runs the fit from p0 and fills the result.
func finishRefit(v Verified, a, b []geom.Point, ci, cj geom.Intrinsics, model func([]float64) [9]float64, p0 []float64) (Verified, bool) {
	toF := func(m [9]float64) [9]float64 {
		if v.Model == Essential {
			return essentialToFundamental(m, ci, cj)
		}
		return m
	}
	res := func(p []float64, r []float64) {
		f := toF(model(p))
		for k := range a {
			r[k] = signedSampson(f, a[k], b[k])
		}
	}
	p, ok := levenbergMarquardt(res, p0, len(a))
	if !ok {
		return v, false
	}
	m := model(p)
	f := toF(m)
	if n := frobenius(f); n > 0 {
		for k := range f {
			f[k] /= n
		}
	}
	if v.Model == Essential {
		if n := frobenius(m); n > 0 {
			for k := range m {
				m[k] /= n
			}
		}
		v.Matrix, v.F = m, f
	} else {
		v.Matrix, v.F = f, f
	}
	return v, true
}

// signedSampson is SampsonError with the sign of bᵀ F a (a residual whose
// square is smooth in F), 0 where SampsonError is +Inf.
func signedSampson(f [9]float64, a, b geom.Point) float64 {
	e, d := sampsonTerms(f, a, b)
	if d == 0 {
		return 0
	}
	return e / math.Sqrt(d)
}

// levenbergMarquardt minimizes the sum of squares of res (m residuals)
// from p0, with forward-difference derivatives. ok is false when the
// start is not finite or no step lowered the cost.
func levenbergMarquardt(res func(p, r []float64), p0 []float64, m int) ([]float64, bool) {
	n := len(p0)
	p := append([]float64(nil), p0...)
	r := make([]float64, m)
	res(p, r)
	cost := sumSq(r)
	if math.IsNaN(cost) || math.IsInf(cost, 0) {
		return nil, false
	}
	start := cost
	J := make([]float64, m*n)
	rp := make([]float64, m)
	q := make([]float64, n)
	lambda := 1e-3
	for it := 0; it < 100; it++ {
		for j := 0; j < n; j++ {
			h := 1e-7 * max(1, math.Abs(p[j]))
			copy(q, p)
			q[j] += h
			res(q, rp)
			for k := 0; k < m; k++ {
				J[k*n+j] = (rp[k] - r[k]) / h
			}
		}
		var A [49]float64
		var g [7]float64
		for k := 0; k < m; k++ {
			row := J[k*n : k*n+n]
			for i := 0; i < n; i++ {
				g[i] += row[i] * r[k]
				for j := 0; j <= i; j++ {
					A[i*n+j] += row[i] * row[j]
				}
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j < i; j++ {
				A[j*n+i] = A[i*n+j]
			}
		}
		improved := false
		for lambda < 1e12 {
			var B [49]float64
			copy(B[:], A[:n*n])
			var rhs [7]float64
			for i := 0; i < n; i++ {
				B[i*n+i] += lambda * max(A[i*n+i], 1e-12)
				rhs[i] = -g[i]
			}
			d, ok := solveSmall(B[:n*n], rhs[:n], n)
			if !ok {
				lambda *= 10
				continue
			}
			for i := range q {
				q[i] = p[i] + d[i]
			}
			res(q, rp)
			c := sumSq(rp)
			if c < cost {
				step := 0.0
				for _, x := range d {
					step = max(step, math.Abs(x))
				}
				copy(p, q)
				copy(r, rp)
				done := cost-c <= 1e-12*cost || step < 1e-12
				cost = c
				lambda = max(lambda/10, 1e-12)
				improved = true
				if done {
					return p, cost < start
				}
				break
			}
			lambda *= 10
		}
		if !improved {
			break
		}
	}
	return p, cost < start
}

// solveSmall solves the n×n system A x = b (row-major, n ≤ 7) by Gaussian
// elimination with partial pivoting; ok is false when A is singular.
func solveSmall(A, b []float64, n int) ([]float64, bool) {
	for c := 0; c < n; c++ {
		piv := c
		for r := c + 1; r < n; r++ {
			if math.Abs(A[r*n+c]) > math.Abs(A[piv*n+c]) {
				piv = r
			}
		}
		if A[piv*n+c] == 0 || math.IsNaN(A[piv*n+c]) {
			return nil, false
		}
		if piv != c {
			for k := 0; k < n; k++ {
				A[c*n+k], A[piv*n+k] = A[piv*n+k], A[c*n+k]
			}
			b[c], b[piv] = b[piv], b[c]
		}
		for r := c + 1; r < n; r++ {
			f := A[r*n+c] / A[c*n+c]
			for k := c; k < n; k++ {
				A[r*n+k] -= f * A[c*n+k]
			}
			b[r] -= f * b[c]
		}
	}
	x := make([]float64, n)
	for r := n - 1; r >= 0; r-- {
		s := b[r]
		for k := r + 1; k < n; k++ {
			s -= A[r*n+k] * x[k]
		}
		x[r] = s / A[r*n+r]
	}
	return x, true
}

func sumSq(r []float64) float64 {
	s := 0.0
	for _, x := range r {
		s += x * x
	}
	return s
}

func frobenius(m [9]float64) float64 { return math.Sqrt(sumSq(m[:])) }

// rodrigues is the rotation by the vector (x, y, z) (axis times angle).
func rodrigues(x, y, z float64) [9]float64 {
	th := math.Sqrt(x*x + y*y + z*z)
	if th < 1e-300 {
		return [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	}
	kx, ky, kz := x/th, y/th, z/th
	c, s := math.Cos(th), math.Sin(th)
	v := 1 - c
	return [9]float64{
		c + kx*kx*v, kx*ky*v - kz*s, kx*kz*v + ky*s,
		ky*kx*v + kz*s, c + ky*ky*v, ky*kz*v - kx*s,
		kz*kx*v - ky*s, kz*ky*v + kx*s, c + kz*kz*v,
	}
}

// tangentBasis returns two unit vectors orthogonal to t and each other.
func tangentBasis(t [3]float64) (b1, b2 [3]float64) {
	a := [3]float64{1, 0, 0}
	if math.Abs(t[0]) >= 0.9 {
		a = [3]float64{0, 1, 0}
	}
	b1 = geom.Cross(t, a)
	n := math.Sqrt(b1[0]*b1[0] + b1[1]*b1[1] + b1[2]*b1[2])
	for k := range b1 {
		b1[k] /= n
	}
	return b1, geom.Cross(t, b1)
}

// decomposeEssential returns one rotation and unit baseline of an
// essential matrix (E ∝ [t]× R). Which of the four it is does not matter
// to the Sampson distance: all give E up to sign.
func decomposeEssential(e [9]float64) (R [9]float64, t [3]float64, ok bool) {
	U, s, V, ok := geom.SVD3(e)
	if !ok || s[0] == 0 {
		return R, t, false
	}
	W := [9]float64{0, -1, 0, 1, 0, 0, 0, 0, 1}
	R = geom.Mul3(U, geom.Mul3(W, geom.Transpose3(V)))
	t = [3]float64{U[2], U[5], U[8]}
	return R, t, true
}

// hartley is the similarity taking points to mean 0 and mean distance √2.
func hartley(p []geom.Point) [9]float64 {
	var cx, cy float64
	for _, q := range p {
		cx += q.X
		cy += q.Y
	}
	cx /= float64(len(p))
	cy /= float64(len(p))
	d := 0.0
	for _, q := range p {
		d += math.Hypot(q.X-cx, q.Y-cy)
	}
	d /= float64(len(p))
	if d == 0 {
		d = 1
	}
	s := math.Sqrt2 / d
	return [9]float64{s, 0, -s * cx, 0, s, -s * cy, 0, 0, 1}
}
