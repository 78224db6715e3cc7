package geom

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Mul3 is the product of two 3×3 matrices (row-major).
func Mul3(a, b [9]float64) [9]float64 {
	var c [9]float64
	for r := 0; r < 3; r++ {
		for k := 0; k < 3; k++ {
			for s := 0; s < 3; s++ {
				c[3*r+k] += a[3*r+s] * b[3*s+k]
			}
		}
	}
	return c
}

// Transpose3 transposes a 3×3 matrix (row-major).
func Transpose3(a [9]float64) [9]float64 {
	return [9]float64{a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8]}
}

// Inverse3 inverts a 3×3 matrix (row-major), ok = false when it is
// singular relative to its scale.
func Inverse3(m [9]float64) (inv [9]float64, ok bool) {
	c := [9]float64{
		m[4]*m[8] - m[5]*m[7], m[2]*m[7] - m[1]*m[8], m[1]*m[5] - m[2]*m[4],
		m[5]*m[6] - m[3]*m[8], m[0]*m[8] - m[2]*m[6], m[2]*m[3] - m[0]*m[5],
		m[3]*m[7] - m[4]*m[6], m[1]*m[6] - m[0]*m[7], m[0]*m[4] - m[1]*m[3],
	}
	det := m[0]*c[0] + m[1]*c[3] + m[2]*c[6]
	s := 0.0
	for _, v := range m {
		s = max(s, math.Abs(v))
	}
	if s == 0 || math.Abs(det) <= 1e-12*s*s*s || math.IsNaN(det) {
		return inv, false
	}
	for k := range c {
		inv[k] = c[k] / det
	}
	return inv, true
}

// Det3 is the determinant of a 3×3 matrix (row-major), by cofactors of
// the first row.
func Det3(m [9]float64) float64 {
	return m[0]*(m[4]*m[8]-m[5]*m[7]) - m[1]*(m[3]*m[8]-m[5]*m[6]) + m[2]*(m[3]*m[7]-m[4]*m[6])
}

// MulVec3 is the matrix m (row-major) times x.
func MulVec3(m [9]float64, x [3]float64) [3]float64 {
	return [3]float64{m[0]*x[0] + m[1]*x[1] + m[2]*x[2], m[3]*x[0] + m[4]*x[1] + m[5]*x[2], m[6]*x[0] + m[7]*x[1] + m[8]*x[2]}
}

// MulTVec3 is the transpose of m (row-major) times x.
func MulTVec3(m [9]float64, x [3]float64) [3]float64 {
	return [3]float64{m[0]*x[0] + m[3]*x[1] + m[6]*x[2], m[1]*x[0] + m[4]*x[1] + m[7]*x[2], m[2]*x[0] + m[5]*x[1] + m[8]*x[2]}
}

// Skew is the cross-product matrix [t]×: Skew(t)·x = t × x.
func Skew(t [3]float64) [9]float64 {
	return [9]float64{0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0}
}

// SVD3 is the singular value decomposition m = U diag(s) Vᵀ with U and V
// rotations (a reflection moved into the sign of m's scale, which F and E
// do not fix); s is largest first. ok is false when it fails.
func SVD3(m [9]float64) (U [9]float64, s [3]float64, V [9]float64, ok bool) {
	var d mat.SVD
	if !d.Factorize(mat.NewDense(3, 3, m[:]), mat.SVDFull) {
		return U, s, V, false
	}
	var u, vv mat.Dense
	d.UTo(&u)
	d.VTo(&vv)
	vals := d.Values(nil)
	for r := 0; r < 3; r++ {
		s[r] = vals[r]
		for c := 0; c < 3; c++ {
			U[3*r+c], V[3*r+c] = u.At(r, c), vv.At(r, c)
		}
	}
	if Det3(U) < 0 {
		for k := range U {
			U[k] = -U[k]
		}
	}
	if Det3(V) < 0 {
		for k := range V {
			V[k] = -V[k]
		}
	}
	return U, s, V, true
}

// SingularValues3 returns the singular values of the 3×3 matrix m
// (row-major), largest first; ok is false when the decomposition fails.
func SingularValues3(m [9]float64) (s [3]float64, ok bool) {
	_, s, _, ok = SVD3(m)
	return s, ok
}
