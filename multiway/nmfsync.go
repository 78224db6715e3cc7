package multiway

import (
	"context"
	"math"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// NMFSync's parameters, as the CLEAR paper ran it.
const (
	nmfMaxIter = 100
	nmfTol     = 1e-4
)

// nmfSync is NMFSync: Bernard, Thunberg, Gonçalves and Theobalt,
// "Synchronisation of partial multi-matchings via non-negative
// factorisations", Pattern Recognition 2019.
//
// V, λ are the top m̂ eigenpairs of W = (P + Pᵀ)/2, V ← V·diag(sqrt(λ)),
// column signs made non-negative in sum. V is synchronized by rotation
// alignment (SBRA), made non-negative and refined by a non-negative
// factorization W ≈ VHᵀ (Lee–Seung multiplicative updates from (V, V), at
// most 100 iterations, tolerance 1e-4). Columns are scaled by the inverse
// square root of their norms, aligned by SBRA again, and every view's rows
// are assigned to distinct columns by a maximum-weight assignment. The
// columns are the items: consistent and distinct.
func nmfSync(ctx context.Context, s *sparse, m int, opts *Options) (*Result, error) {
	e, err := s.topEigen(ctx, m, opts)
	if err != nil {
		return nil, err
	}
	d, l := e.k, s.l
	if d == 0 {
		return &Result{Item: make([]int, l), Converged: true}, nil
	}
	f := make([]float64, d)
	for j, v := range e.Val {
		f[j] = math.Sqrt(max(v, 0))
	}
	e.scale(f)
	V := e.dense()
	fixSigns(V, l, d)
	V = sbra(s, V, d)
	fixSigns(V, l, d)
	for i := range V {
		V[i] = max(V[i], 0)
	}
	res := &Result{}
	if V, err = nmf(ctx, s, V, d, opts, res); err != nil {
		return nil, err
	}
	for j := 0; j < d; j++ {
		n := 0.0
		for i := 0; i < l; i++ {
			n += V[i*d+j] * V[i*d+j]
		}
		if n = math.Sqrt(math.Sqrt(n)); n > 0 {
			for i := 0; i < l; i++ {
				V[i*d+j] /= n
			}
		}
	}
	U := sbra(s, V, d)
	fixSigns(U, l, d)
	item := make([]int, l)
	for v := 0; v < s.views(); v++ {
		lo, n := s.offset[v], s.size(v)
		if n == 0 {
			continue
		}
		for i, c := range hungarianMax(U[lo*d:(lo+n)*d], n, d) {
			item[lo+i] = c
		}
	}
	res.Item = item
	return res, nil
}

// fixSigns flips every column of the l×d matrix x whose sum is negative.
func fixSigns(x []float64, l, d int) {
	for j := 0; j < d; j++ {
		sum := 0.0
		for i := 0; i < l; i++ {
			sum += x[i*d+j]
		}
		if sum < 0 {
			for i := 0; i < l; i++ {
				x[i*d+j] = -x[i*d+j]
			}
		}
	}
}

// sbra is synchronization by rotation alignment: the rows of the largest
// view are assigned to the first columns as an identity; U is rotated onto
// the indicator C of the assignment (orthogonal Procrustes: Q = uvᵀ from
// the SVD of UᵀC); on the first pass a threshold is set to half the median
// of the rotated entries at C's ones. Rows whose maximum over the assigned
// columns is below it are inactive; the view with most inactive rows (the
// first on ties) gets the next columns for them, C is rebuilt from every
// other row's maximum entry when it reaches the threshold, and the rotation
// is repeated, until no row is inactive or the columns run out. It returns
// the last rotation of U.
func sbra(s *sparse, U []float64, d int) []float64 {
	l := s.l
	colOf := make([]int, l)
	for i := range colOf {
		colOf[i] = -1
	}
	v0 := 0
	for v := 1; v < s.views(); v++ {
		if s.size(v) > s.size(v0) {
			v0 = v
		}
	}
	assigned := min(s.size(v0), d)
	for k := 0; k < assigned; k++ {
		colOf[s.offset[v0]+k] = k
	}
	um := mat.NewDense(l, d, U)
	rot := mat.NewDense(l, d, nil)
	M := mat.NewDense(d, d, nil)
	var Q mat.Dense
	thr := math.NaN()
	for {
		M.Zero()
		for r, c := range colOf {
			if c < 0 {
				continue
			}
			for j := 0; j < d; j++ {
				M.Set(j, c, M.At(j, c)+U[r*d+j])
			}
		}
		var svd mat.SVD
		if !svd.Factorize(M, mat.SVDFull) {
			break
		}
		var u, vt mat.Dense
		svd.UTo(&u)
		svd.VTo(&vt)
		Q.Mul(&u, vt.T())
		rot.Mul(um, &Q)
		R := rot.RawMatrix().Data
		if math.IsNaN(thr) {
			var at []float64
			for r, c := range colOf {
				if c >= 0 {
					at = append(at, R[r*d+c])
				}
			}
			sort.Float64s(at)
			thr = 0
			if n := len(at); n > 0 {
				thr = (at[(n-1)/2] + at[n/2]) / 4 // half the median
			}
		}
		if assigned >= d {
			break
		}
		inactive := make([]int, s.views())
		best := make([]int, l)
		anyInactive := false
		for r := 0; r < l; r++ {
			b := 0
			for c := 1; c < assigned; c++ {
				if R[r*d+c] > R[r*d+b] {
					b = c
				}
			}
			best[r] = b
			if assigned == 0 || R[r*d+b] < thr {
				best[r] = -1
				inactive[s.view[r]]++
				anyInactive = true
			}
		}
		if !anyInactive {
			break
		}
		nv := 0
		for v := range inactive {
			if inactive[v] > inactive[nv] {
				nv = v
			}
		}
		copy(colOf, best)
		for r := s.offset[nv]; r < s.offset[nv+1] && assigned < d; r++ {
			if best[r] < 0 {
				colOf[r] = assigned
				assigned++
			}
		}
	}
	return append([]float64(nil), rot.RawMatrix().Data...)
}

// nmf refines W ≈ V Hᵀ (W = P, V and H l×d, non-negative) by Lee–Seung's
// multiplicative updates from H = V, stopping after opts.maxIter(100)
// iterations or when the largest relative change of a factor, or the
// decrease of the root-mean-square residual relative to the previous one,
// falls below 1e-4 (MATLAB nnmf's rules). It returns V.
func nmf(ctx context.Context, s *sparse, V []float64, d int, opts *Options, res *Result) ([]float64, error) {
	l := s.l
	H := append([]float64(nil), V...)
	var normW float64 // ‖W‖²_F
	normW = float64(l)
	for _, w := range s.val {
		normW += w * w
	}
	gram := func(x []float64) []float64 { // xᵀx, d×d
		g := mat.NewDense(d, d, nil)
		xm := mat.NewDense(l, d, x)
		g.Mul(xm.T(), xm)
		return g.RawMatrix().Data
	}
	mulSmall := func(x, g []float64) []float64 { // x (l×d) · g (d×d)
		out := mat.NewDense(l, d, nil)
		out.Mul(mat.NewDense(l, d, x), mat.NewDense(d, d, g))
		return out.RawMatrix().Data
	}
	update := func(x0, numer, denom []float64) []float64 {
		out := make([]float64, len(x0))
		for i, x := range x0 {
			out[i] = max(0, x*numer[i]/(denom[i]+2.2e-16*math.Abs(numer[i])+1e-300))
		}
		return out
	}
	maxAbs := func(x []float64) float64 {
		m := 0.0
		for _, v := range x {
			m = max(m, math.Abs(v))
		}
		return m
	}
	maxIter := opts.maxIter(nmfMaxIter)
	dnorm0 := math.Inf(1)
	sqrteps := math.Sqrt(2.2e-16)
	gV := gram(V)
	for it := 1; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// H ← H ∘ (WV) / (H VᵀV); V ← V ∘ (WH) / (V HᵀH). Each Gram
		// matrix is computed once: HᵀH serves the V update and the
		// residual, the new VᵀV the residual and the next H update.
		Hn := update(H, s.mulDense(V, d), mulSmall(H, gV))
		gH := gram(Hn)
		WH := s.mulDense(Hn, d)
		Vn := update(V, WH, mulSmall(V, gH))
		// ‖W − VHᵀ‖² = ‖W‖² − 2⟨WH, V⟩ + ⟨VᵀV, HᵀH⟩
		cross := 0.0
		for i := range Vn {
			cross += WH[i] * Vn[i]
		}
		gVn := gram(Vn)
		quad := 0.0
		for i := range gVn {
			quad += gVn[i] * gH[i]
		}
		dnorm := math.Sqrt(max(normW-2*cross+quad, 0) / float64(l) / float64(l))
		dv, dh := 0.0, 0.0
		mv, mh := maxAbs(V), maxAbs(H)
		for i := range V {
			dv = max(dv, math.Abs(Vn[i]-V[i])/(sqrteps+mv))
			dh = max(dh, math.Abs(Hn[i]-H[i])/(sqrteps+mh))
		}
		V, H, gV = Vn, Hn, gVn
		res.Iterations = it
		opts.progress(it, maxIter)
		if it > 1 && (max(dv, dh) <= nmfTol || dnorm0-dnorm <= nmfTol*max(1, dnorm0)) {
			res.Converged = true
			break
		}
		dnorm0 = dnorm
	}
	return V, nil
}
