package refine

import (
	"math"
	"sync"
)

// patchWarp is one alignment's state: the template's zero-mean pixels and
// norm, and the image sampled under the current warp with its Jacobian.
// Its buffers come from a pool, since every observation needs them once.
type patchWarp struct {
	im  *Image
	r   int
	tz  []float64 // the template, zero mean
	tn  float64   // its norm
	iw  []float64 // the warped image, zero mean
	jac [][6]float64
	jm  [6]float64 // jac's column means
}

var patchWarps = sync.Pool{New: func() any { return new(patchWarp) }}

func newPatchWarp(im *Image, t *Template) *patchWarp {
	w := patchWarps.Get().(*patchWarp)
	n := len(t.Pix)
	w.im, w.r = im, t.R
	w.tz, w.iw, w.jac = grow(w.tz, n), grow(w.iw, n), grow(w.jac, n)
	var tm float64
	for _, v := range t.Pix {
		tm += float64(v)
	}
	tm /= float64(n)
	w.tn = 0
	for k, v := range t.Pix {
		w.tz[k] = float64(v) - tm
		w.tn += w.tz[k] * w.tz[k]
	}
	w.tn = math.Sqrt(w.tn)
	return w
}

func (w *patchWarp) release() {
	w.im = nil
	patchWarps.Put(w)
}

// grow returns b resized to n, reusing its memory when it can.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

// sample warps the image under p: template pixel (u, v), centred at
// (0, 0), goes to (p0 u + p1 v + p2, p3 u + p4 v + p5). It fills iw (zero
// mean), jac and jm, and returns iw's norm; false when a pixel leaves the
// image.
func (w *patchWarp) sample(p *[6]float64) (norm float64, ok bool) {
	im, r := w.im, w.r
	check := !w.clearOfBorder(p)
	var mean, m0, m1, m2, m3, m4, m5 float64
	k := 0
	for v := -r; v <= r; v++ {
		for u := -r; u <= r; u++ {
			fu, fv := float64(u), float64(v)
			wx, wy := p[0]*fu+p[1]*fv+p[2], p[3]*fu+p[4]*fv+p[5]
			if check && !im.inside(wx, wy) {
				return 0, false
			}
			val, gx, gy := im.sample(wx, wy)
			w.iw[k] = val
			j := [6]float64{gx * fu, gx * fv, gx, gy * fu, gy * fv, gy}
			w.jac[k] = j
			m0, m1, m2, m3, m4, m5 = m0+j[0], m1+j[1], m2+j[2], m3+j[3], m4+j[4], m5+j[5]
			mean += val
			k++
		}
	}
	n := float64(len(w.iw))
	mean /= n
	w.jm = [6]float64{m0 / n, m1 / n, m2 / n, m3 / n, m4 / n, m5 / n}
	for k := range w.iw {
		w.iw[k] -= mean
		norm += w.iw[k] * w.iw[k]
	}
	return math.Sqrt(norm), true
}

// clearOfBorder reports whether every pixel of the warped patch is surely
// inside the image: the patch is the convex hull of its corners, so it is
// when the corners are, by a margin far above the rounding of the warp.
// false sends sample to check pixel by pixel, so the answer never differs
// from that check's.
func (w *patchWarp) clearOfBorder(p *[6]float64) bool {
	im, r := w.im, float64(w.r)
	if im.Width < 2 || im.Height < 2 {
		return false
	}
	scale := (math.Abs(p[0])+math.Abs(p[1])+math.Abs(p[3])+math.Abs(p[4]))*r + math.Abs(p[2]) + math.Abs(p[5])
	margin := 1e-6 + 1e-9*scale
	if !(scale < 1e9) {
		return false
	}
	for _, c := range [4][2]float64{{-r, -r}, {r, -r}, {-r, r}, {r, r}} {
		x, y := p[0]*c[0]+p[1]*c[1]+p[2], p[3]*c[0]+p[4]*c[1]+p[5]
		if !(x >= margin && y >= margin && x <= float64(im.Width-1)-margin && y <= float64(im.Height-1)-margin) {
			return false
		}
	}
	return true
}

// step is one Gauss-Newton step of ECC (Evangelidis and Psarakis, eq. 29)
// from the current samples, whose norm is inorm: it moves p and returns
// the correlation before the move.
func (w *patchWarp) step(p *[6]float64, inorm float64) (rho float64, err error) {
	H, pi, pt, corr := w.normalEquations()
	rho = corr / (inorm * w.tn)
	if math.IsNaN(rho) {
		return rho, ErrDiverged
	}
	L, ok := cholesky6(H)
	if !ok {
		return rho, ErrDiverged
	}
	hi := L.solve(pi)
	ln := inorm*inorm - dot6(pi, hi)
	ld := corr - dot6(pt, hi)
	if ld <= 0 {
		return rho, ErrDiverged
	}
	lambda := ln / ld
	// Δp = H⁻¹ Jᵀ(λ t − i)
	var e [6]float64
	for a := 0; a < 6; a++ {
		e[a] = lambda*pt[a] - pi[a]
	}
	dp := L.solve(e)
	for a := range p {
		p[a] += dp[a]
	}
	return rho, nil
}

// correlation is the template's and the samples' inner product.
func (w *patchWarp) correlation() float64 {
	var corr float64
	for k := range w.iw {
		corr += w.tz[k] * w.iw[k]
	}
	return corr
}

// normalEquations returns the Hessian JᵀJ of the zero-mean Jacobian, the
// projections of the image and template on it, and their correlation, in
// one pass over the pixels. Each sum runs over the pixels in order in its
// own scalar, so the compiler keeps the sums in registers (arrays would be
// stored back at every pixel); the arithmetic is the plain loops', term
// for term.
func (w *patchWarp) normalEquations() (H [6][6]float64, pi, pt [6]float64, corr float64) {
	var h00, h01, h02, h03, h04, h05, h11, h12, h13, h14, h15 float64
	var h22, h23, h24, h25, h33, h34, h35, h44, h45, h55 float64
	var pi0, pi1, pi2, pi3, pi4, pi5, pt0, pt1, pt2, pt3, pt4, pt5 float64
	jm := w.jm
	iw, tz := w.iw[:len(w.jac)], w.tz[:len(w.jac)]
	for k := range w.jac {
		jk := &w.jac[k]
		j0, j1, j2, j3, j4, j5 := jk[0]-jm[0], jk[1]-jm[1], jk[2]-jm[2], jk[3]-jm[3], jk[4]-jm[4], jk[5]-jm[5]
		h00 += j0 * j0
		h01 += j0 * j1
		h02 += j0 * j2
		h03 += j0 * j3
		h04 += j0 * j4
		h05 += j0 * j5
		h11 += j1 * j1
		h12 += j1 * j2
		h13 += j1 * j3
		h14 += j1 * j4
		h15 += j1 * j5
		h22 += j2 * j2
		h23 += j2 * j3
		h24 += j2 * j4
		h25 += j2 * j5
		h33 += j3 * j3
		h34 += j3 * j4
		h35 += j3 * j5
		h44 += j4 * j4
		h45 += j4 * j5
		h55 += j5 * j5
		i, t := iw[k], tz[k]
		pi0 += j0 * i
		pi1 += j1 * i
		pi2 += j2 * i
		pi3 += j3 * i
		pi4 += j4 * i
		pi5 += j5 * i
		pt0 += j0 * t
		pt1 += j1 * t
		pt2 += j2 * t
		pt3 += j3 * t
		pt4 += j4 * t
		pt5 += j5 * t
		corr += t * i
	}
	H = [6][6]float64{
		{h00, h01, h02, h03, h04, h05},
		{h01, h11, h12, h13, h14, h15},
		{h02, h12, h22, h23, h24, h25},
		{h03, h13, h23, h33, h34, h35},
		{h04, h14, h24, h34, h44, h45},
		{h05, h15, h25, h35, h45, h55},
	}
	return H, [6]float64{pi0, pi1, pi2, pi3, pi4, pi5}, [6]float64{pt0, pt1, pt2, pt3, pt4, pt5}, corr
}

func dot6(a, b [6]float64) float64 {
	var s float64
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

// chol6 is the Cholesky factor L (lower triangular, H = L Lᵀ) of a
// symmetric positive definite 6×6 matrix.
type chol6 [6][6]float64

// cholesky6 factors H; false when H is not (numerically) positive
// definite. Each Gauss-Newton step solves twice with the same H.
func cholesky6(H [6][6]float64) (chol6, bool) {
	var L chol6
	for i := 0; i < 6; i++ {
		for j := 0; j <= i; j++ {
			s := H[i][j]
			for k := 0; k < j; k++ {
				s -= L[i][k] * L[j][k]
			}
			if i == j {
				if !(s > 1e-12) {
					return chol6{}, false
				}
				L[i][i] = math.Sqrt(s)
			} else {
				L[i][j] = s / L[j][j]
			}
		}
	}
	return L, true
}

// solve returns x with L Lᵀ x = b.
func (L *chol6) solve(b [6]float64) [6]float64 {
	var y, x [6]float64
	for i := 0; i < 6; i++ {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= L[i][k] * y[k]
		}
		y[i] = s / L[i][i]
	}
	for i := 5; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < 6; k++ {
			s -= L[k][i] * x[k]
		}
		x[i] = s / L[i][i]
	}
	return x
}
