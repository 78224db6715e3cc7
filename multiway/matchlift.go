package multiway

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// MatchLift's parameters, as the CLEAR paper ran it.
const (
	liftMaxIter   = 1000
	liftMu0       = 0.1
	liftGrowth    = 1.008
	liftTol       = 1e-3
	liftCheckStep = 50
)

// matchLift is MatchLift: Chen, Guibas and Huang, "Near-optimal joint
// object matching via convex relaxation", ICML 2014.
//
// The semidefinite relaxation over X̃ = [m̂ 1ᵀ; 1 X] ⪰ 0 with X ≥ 0,
// diag(X) = 1 and zero off-diagonal entries inside every view minimizes
// ⟨11ᵀ − 2P, X⟩ (λ = ½). It is solved by ADMM on the splitting X̃ = Z, X̃
// projected on the positive semidefinite cone (one full eigendecomposition
// of an (l+1)×(l+1) matrix per iteration) and Z on the linear constraints
// and X ≥ 0, with penalty μ₀ = 0.1 growing by 1.008 per iteration, at most
// 1000 iterations, stopping when ‖X̃ − Z‖_F/(1 + ‖Z‖_F) < 1e-3, checked
// every 50 iterations. Rounding: V = U·sqrt(|D|) from the m̂ eigenpairs of
// X of largest magnitude, greedy in index order as in Spectral, joining
// when the inner product is at least 0.5. Consistent and distinct.
//
// Memory: seven dense (l+1)×(l+1) matrices; time O(l³) per iteration.
func matchLift(ctx context.Context, s *sparse, m int, opts *Options) (*Result, error) {
	l := s.l
	n := l + 1
	// Costs, implicit: C[0][*] = 0; C[i][j] = 1 − 2P for i, j ≥ 1.
	cost := make([]float64, n*n)
	for i := 1; i < n; i++ {
		row := cost[i*n : (i+1)*n]
		for j := 1; j < n; j++ {
			row[j] = 1
		}
		row[i] = -1
		r := i - 1
		for e := s.start[r]; e < s.start[r+1]; e++ {
			row[s.col[e]+1] = 1 - 2*s.val[e]
		}
	}
	project := func(z []float64) { // onto the linear constraints and X ≥ 0
		z[0] = float64(m)
		for i := 1; i < n; i++ {
			z[i], z[i*n] = 1, 1
			v := s.view[i-1]
			lo, hi := s.offset[v]+1, s.offset[v+1]+1
			row := z[i*n : (i+1)*n]
			for j := 1; j < n; j++ {
				switch {
				case j == i:
					row[j] = 1
				case j >= lo && j < hi:
					row[j] = 0
				default:
					row[j] = max(row[j], 0)
				}
			}
		}
	}
	Z := make([]float64, n*n)
	project(Z)
	L := make([]float64, n*n) // the multiplier Λ
	X := make([]float64, n*n)
	sym := mat.NewSymDense(n, nil)
	var es mat.EigenSym
	var vecs mat.Dense
	mu := liftMu0
	maxIter := opts.maxIter(liftMaxIter)
	res := &Result{}
	for it := 1; it <= maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// X ← Π_psd(Z − (Λ + C)/μ)
		raw := sym.RawSymmetric()
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				k := i*n + j
				raw.Data[i*raw.Stride+j] = Z[k] - (L[k]+cost[k])/mu
			}
		}
		if !es.Factorize(sym, true) {
			return nil, fmt.Errorf("multiway: matchlift: eigendecomposition of %d×%d did not converge", n, n)
		}
		vals := es.Values(nil)
		es.VectorsTo(&vecs)
		psd(X, vals, &vecs, n)
		// Z ← Π_Ω(X + Λ/μ); Λ ← Λ + μ(X − Z)
		var r2, z2 float64
		for k := range Z {
			Z[k] = X[k] + L[k]/mu
		}
		project(Z)
		for k := range Z {
			d := X[k] - Z[k]
			L[k] += mu * d
			r2 += d * d
			z2 += Z[k] * Z[k]
		}
		res.Iterations = it
		opts.progress(it, maxIter)
		if it%liftCheckStep == 0 && math.Sqrt(r2)/(1+math.Sqrt(z2)) < liftTol {
			res.Converged = true
			break
		}
		mu *= liftGrowth
	}
	// Round from the X block of X̃.
	xs := mat.NewSymDense(l, nil)
	for i := 0; i < l; i++ {
		for j := i; j < l; j++ {
			xs.SetSym(i, j, X[(i+1)*n+j+1])
		}
	}
	if l == 0 {
		return res, nil
	}
	if !es.Factorize(xs, true) {
		return nil, fmt.Errorf("multiway: matchlift: eigendecomposition of %d×%d did not converge", l, l)
	}
	vals := es.Values(nil)
	vecs = mat.Dense{}
	es.VectorsTo(&vecs)
	k := min(m, l)
	order := make([]int, l)
	for i := range order {
		order[i] = l - 1 - i
	}
	sortByMagnitude(order, vals)
	V := make([]float64, l*k)
	for c, j := range order[:k] {
		f := math.Sqrt(math.Abs(vals[j]))
		for i := 0; i < l; i++ {
			V[i*k+c] = vecs.At(i, j) * f
		}
	}
	res.Item = greedyRound(s, nil, func(i, j int) float64 { return dot(V[i*k:(i+1)*k], V[j*k:(j+1)*k]) }, func(d float64) bool { return d >= 0.5 })
	return res, nil
}

// psd sets x (n×n) to Σ_{λ>0} λ v vᵀ over the eigenpairs (vals, vecs).
func psd(x []float64, vals []float64, vecs *mat.Dense, n int) {
	var pos []int
	for j, v := range vals {
		if v > 0 {
			pos = append(pos, j)
		}
	}
	p := len(pos)
	if p == 0 {
		clear(x)
		return
	}
	a := mat.NewDense(n, p, nil)
	b := mat.NewDense(n, p, nil)
	for c, j := range pos {
		f := vals[j]
		for i := 0; i < n; i++ {
			v := vecs.At(i, j)
			a.Set(i, c, v*f)
			b.Set(i, c, v)
		}
	}
	out := mat.NewDense(n, n, x)
	out.Mul(a, b.T())
}
