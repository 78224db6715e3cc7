package multiway

import (
	"context"
	"math"
	"math/rand/v2"
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
// It follows the authors' nmfSync.m as the CLEAR paper's harness calls it
// (theta 0): V, λ are the top m̂ eigenpairs of W = (P + Pᵀ)/2 (with its
// identity diagonal blocks), V ← V·diag(sqrt(λ)), columns multiplied by the
// sign of their sums. V is synchronized by rotation alignment (SBRA),
// made non-negative and refined by MATLAB nnmf's multiplicative updates
// from (V, V), put in nnmf's standard form; columns are scaled by the
// inverse square root of their norms, aligned by SBRA again, and every
// view's rows are assigned to distinct columns by a maximum-weight
// assignment; an observation negative at its column, in a column it
// shares, gets a column of its own. Kept differences, each measured
// (docs/decisions.md, "The compared methods"): the assignment is exact
// (the original's auction pads non-square blocks with random rows); a
// degenerate eigenspace at the cut gets a seeded random basis (the
// original: LAPACK's); negative eigenvalues count as 0 (the original goes
// complex).
func nmfSync(ctx context.Context, s *sparse, m int, opts *Options) (*Result, error) {
	V, d, err := nmfEmbedding(ctx, s, m, opts)
	if err != nil {
		return nil, err
	}
	if d == 0 {
		return &Result{Item: make([]int, s.l), Converged: true}, nil
	}
	return nmfSyncFrom(ctx, s, V, d, opts)
}

// nmfEmbedding returns the original's starting point: the eigenvectors of
// W's m largest eigenvalues, scaled by their square roots (l×d, d =
// min(m, l)). Where the m-th eigenvalue is one of several equal ones (W =
// I + P has λ = 1 for every observation without matches, and more), the
// original's dense eig returns an arbitrary orthonormal basis of that
// eigenspace, spread over its observations, and keeps some of it; the
// per-component decomposition here would keep unit vectors of single
// observations instead, which scored lower than the original on most such
// problems (docs/decisions.md). So the tied vectors are replaced by a
// seeded random orthonormal basis of the whole tied eigenspace found among
// the 2m largest.
func nmfEmbedding(ctx context.Context, s *sparse, m int, opts *Options) ([]float64, int, error) {
	l := s.l
	d := min(m, l)
	if d == 0 {
		return nil, 0, nil
	}
	e, err := s.topEigen(ctx, min(2*d, l), opts)
	if err != nil {
		return nil, 0, err
	}
	all, k := e.dense(), e.k
	cut := e.Val[d-1]
	tied := func(v float64) bool { return math.Abs(v-cut) <= 1e-9*max(1, math.Abs(cut)) }
	first := d - 1 // the first chosen column tied with the cut
	for first > 0 && tied(e.Val[first-1]) {
		first--
	}
	last := d // the tied eigenspace is columns first..last-1 of all
	for last < k && tied(e.Val[last]) {
		last++
	}
	V := make([]float64, l*d)
	for i := 0; i < l; i++ {
		copy(V[i*d:i*d+first], all[i*k:i*k+first])
	}
	if g := last - first; g > d-first {
		mix := randomOrthonormal(g, d-first, opts.seed())
		for i := 0; i < l; i++ {
			for c := 0; c < d-first; c++ {
				x := 0.0
				for t := 0; t < g; t++ {
					x += all[i*k+first+t] * mix[t*(d-first)+c]
				}
				V[i*d+first+c] = x
			}
		}
	} else {
		for i := 0; i < l; i++ {
			copy(V[i*d+first:i*d+d], all[i*k+first:i*k+d])
		}
	}
	for j := 0; j < d; j++ {
		f := math.Sqrt(max(e.Val[j], 0))
		for i := 0; i < l; i++ {
			V[i*d+j] *= f
		}
	}
	return V, d, nil
}

// randomOrthonormal returns the first r columns (g×r, row-major) of a
// random g×g orthogonal matrix: the Q of a Gaussian matrix's QR
// decomposition, seeded.
func randomOrthonormal(g, r int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, 0x6e6d66))
	a := mat.NewDense(g, r, nil)
	for i := 0; i < g; i++ {
		for j := 0; j < r; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	var qr mat.QR
	qr.Factorize(a)
	var q mat.Dense
	qr.QTo(&q)
	out := make([]float64, g*r)
	for i := 0; i < g; i++ {
		for j := 0; j < r; j++ {
			out[i*r+j] = q.At(i, j)
		}
	}
	return out
}

// nmfSyncFrom runs NMFSync from the scaled eigenvectors V (l×d).
func nmfSyncFrom(ctx context.Context, s *sparse, V []float64, d int, opts *Options) (*Result, error) {
	l := s.l
	fixSigns(V, l, d)
	V = sbra(s, V, d)
	fixSigns(V, l, d)
	for i := range V {
		V[i] = max(V[i], 0)
	}
	res := &Result{}
	V, H, err := nmf(ctx, s, V, d, opts, res)
	if err != nil {
		return nil, err
	}
	V = nnmfStandardForm(V, H, l, d)
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
	pruneNegative(item, U, d)
	res.Item = item
	return res, nil
}

// fixSigns multiplies every column of the l×d matrix x by the sign of its
// sum, as the original's x*diag(sign(sum(x,1))): a column summing to
// exactly zero becomes zero.
func fixSigns(x []float64, l, d int) {
	for j := 0; j < d; j++ {
		sum := 0.0
		for i := 0; i < l; i++ {
			sum += x[i*d+j]
		}
		var f float64 // sign(sum); a NaN sum leaves the column as it is
		switch {
		case sum < 0:
			f = -1
		case sum == 0:
			f = 0
		default:
			continue
		}
		for i := 0; i < l; i++ {
			x[i*d+j] *= f
		}
	}
}

// nnmfStandardForm puts the factorization V Hᵀ in the form MATLAB's nnmf
// returns, which the original scales and rotates next: H's columns (its
// rows there) normalized to unit length with V's columns scaled by their
// lengths, then the columns ordered by decreasing length of V's (a stable
// sort, as MATLAB's). It returns the new V.
func nnmfStandardForm(V, H []float64, l, d int) []float64 {
	norm2 := make([]float64, d)
	for j := 0; j < d; j++ {
		hl := 0.0
		for i := 0; i < l; i++ {
			hl += H[i*d+j] * H[i*d+j]
		}
		if hl = math.Sqrt(hl); hl == 0 {
			hl = 1
		}
		for i := 0; i < l; i++ {
			V[i*d+j] *= hl
			norm2[j] += V[i*d+j] * V[i*d+j]
		}
	}
	order := make([]int, d)
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return norm2[order[a]] > norm2[order[b]] })
	out := make([]float64, len(V))
	for i := 0; i < l; i++ {
		for k, j := range order {
			out[i*d+k] = V[i*d+j]
		}
	}
	return out
}

// pruneNegative is the original's pruning at theta 0: an observation whose
// rotated embedding U is negative at its assigned item, in an item it
// shares, leaves it for an item of its own. Observations are visited in
// the original's order (by item, then row), and the sharing is counted as
// the items shrink.
func pruneNegative(item []int, U []float64, d int) {
	members := map[int]int{}
	for _, c := range item {
		members[c]++
	}
	order := make([]int, len(item))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return item[order[a]] < item[order[b]] })
	var bad []int
	for _, i := range order {
		if U[i*d+item[i]] < 0 {
			bad = append(bad, i)
		}
	}
	next := d
	for _, i := range bad {
		if members[item[i]] > 1 {
			members[item[i]]--
			item[i] = next
			next++
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
	U = append([]float64(nil), U...)
	fixSigns(U, l, d)
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
		fixSigns(R, l, d) // SBRAstep's own sign fix
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
			// Below the threshold by more than 1e-9 only: a row whose
			// best value is level with it within rounding stays active
			// (on Hotel one such row decided which view got the next
			// columns, differently from the original's arithmetic).
			if assigned == 0 || R[r*d+b] < thr-1e-9*max(1, math.Abs(thr)) {
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
// falls below 1e-4 (MATLAB nnmf's rules). It returns V and H.
func nmf(ctx context.Context, s *sparse, V []float64, d int, opts *Options, res *Result) (v, h []float64, err error) {
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
			return nil, nil, err
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
	return V, H, nil
}
