package multiway

import (
	"context"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/mat"
)

// Iterative top-k eigensolver for large components: Chebyshev-filtered
// subspace iteration (Zhou and Saad, "A Chebyshev–Davidson algorithm for
// large symmetric eigenproblems", SIAM J. Matrix Anal. Appl. 2007, in its
// block subspace form). A block of p > k vectors is filtered by a degree-m
// Chebyshev polynomial that damps the unwanted interval [lower bound,
// smallest Ritz value] and amplifies the wanted top of the spectrum, then
// orthonormalized and Rayleigh–Ritz projected. A block method finds
// repeated eigenvalues as well as distinct ones. Cost per iteration: m
// sparse products with p vectors and O(n·p²) for the projection, never a
// dense n×n matrix.
const (
	chebDegree  = 10
	chebMaxIter = 400
	chebTol     = 1e-10
	// A component is decomposed iteratively when it has at least
	// iterMinSize observations and the block is at most a quarter of it.
	iterMinSize = 500
)

// useIterative reports whether a component of n observations should give
// its top k eigenpairs iteratively.
func useIterative(n, k int) bool { return !denseOnly && n >= iterMinSize && blockSize(n, k) <= n/4 }

// denseOnly switches the iterative path off (tests compare the two).
var denseOnly bool

func blockSize(n, k int) int { return min(n, k+max(10, k/4)) }

// sub returns the matrix P restricted to the observations comp (sorted),
// renumbered 0..len(comp)−1, for its products.
func (s *sparse) sub(comp []int) *sparse {
	pos := make(map[int]int, len(comp))
	for i, v := range comp {
		pos[v] = i
	}
	t := &sparse{l: len(comp), start: make([]int, len(comp)+1)}
	for i, v := range comp {
		for e := s.start[v]; e < s.start[v+1]; e++ {
			if j, ok := pos[s.col[e]]; ok {
				t.col = append(t.col, j)
				t.val = append(t.val, s.val[e])
			}
		}
		t.start[i+1] = len(t.col)
	}
	return t
}

// bounds returns Gershgorin bounds of P's spectrum: [1 − r, 1 + r] for r
// the largest absolute row sum off the diagonal.
func (s *sparse) bounds() (lo, hi float64) {
	r := 0.0
	for i := 0; i < s.l; i++ {
		sum := 0.0
		for e := s.start[i]; e < s.start[i+1]; e++ {
			sum += math.Abs(s.val[e])
		}
		r = max(r, sum)
	}
	return 1 - r, 1 + r
}

// topIterative returns the k largest eigenvalues of sign·P (sign ±1), in
// descending order, with their eigenvectors (each of length n) for the n×n
// matrix t; only those at or above floor are wanted: it returns once the
// pairs above it and the first converged one below it are found. ok is
// false when it did not converge; the caller then decomposes densely.
func topIterative(ctx context.Context, t *sparse, k int, sign, floor float64, seed uint64) (vals []float64, vecs [][]float64, ok bool, err error) {
	n := t.l
	p := blockSize(n, k)
	lo, hi := t.bounds()
	if sign < 0 {
		lo, hi = -hi, -lo
	}
	mul := func(x []float64) []float64 {
		y := t.mulDense(x, p)
		if sign < 0 {
			for i := range y {
				y[i] = -y[i]
			}
		}
		return y
	}
	rng := rand.New(rand.NewPCG(seed, 0xc4eb))
	X := make([]float64, n*p)
	for i := range X {
		X[i] = rng.Float64() - 0.5
	}
	orthonormalize(X, n, p)
	var theta []float64
	for it := 0; it < chebMaxIter; it++ {
		if err := ctx.Err(); err != nil {
			return nil, nil, false, err
		}
		// Rayleigh–Ritz on span(X).
		AX := mul(X)
		H := mat.NewSymDense(p, nil)
		xm, axm := mat.NewDense(n, p, X), mat.NewDense(n, p, AX)
		var h mat.Dense
		h.Mul(xm.T(), axm)
		for i := 0; i < p; i++ {
			for j := i; j < p; j++ {
				H.SetSym(i, j, (h.At(i, j)+h.At(j, i))/2)
			}
		}
		var es mat.EigenSym
		if !es.Factorize(H, true) {
			return nil, nil, false, nil
		}
		w := es.Values(nil)
		var W mat.Dense
		es.VectorsTo(&W)
		// Descending order.
		order := make([]int, p)
		for i := range order {
			order[i] = p - 1 - i
		}
		Wd := mat.NewDense(p, p, nil)
		theta = make([]float64, p)
		for c, j := range order {
			theta[c] = w[j]
			for r := 0; r < p; r++ {
				Wd.Set(r, c, W.At(r, j))
			}
		}
		var nx, nax mat.Dense
		nx.Mul(xm, Wd)
		nax.Mul(axm, Wd)
		X = nx.RawMatrix().Data
		AXr := nax.RawMatrix().Data
		// Converged when the top k residuals are small.
		scale := max(math.Abs(lo), math.Abs(hi), 1)
		done, got := true, k
		for c := 0; c < k && done; c++ {
			r2 := 0.0
			for i := 0; i < n; i++ {
				d := AXr[i*p+c] - theta[c]*X[i*p+c]
				r2 += d * d
			}
			done = math.Sqrt(r2) <= chebTol*scale
			if done && theta[c] < floor {
				got = c
				break
			}
		}
		if done {
			k = got
			vals = theta[:k]
			vecs = make([][]float64, k)
			for c := range vecs {
				v := make([]float64, n)
				for i := 0; i < n; i++ {
					v[i] = X[i*p+c]
				}
				vecs[c] = v
			}
			return vals, vecs, true, nil
		}
		// Filter: damp [lo, a], a the smallest Ritz value of the block.
		a := theta[p-1]
		if !(a > lo) {
			return nil, nil, false, nil
		}
		e, c := (a-lo)/2, (a+lo)/2
		Y := mul(X)
		for i := range Y {
			Y[i] = (Y[i] - c*X[i]) / e
		}
		prev := X
		for d := 2; d <= chebDegree; d++ {
			Z := mul(Y)
			for i := range Z {
				Z[i] = 2*(Z[i]-c*Y[i])/e - prev[i]
			}
			prev, Y = Y, Z
		}
		X = Y
		if !orthonormalize(X, n, p) {
			return nil, nil, false, nil
		}
	}
	return nil, nil, false, nil
}

// orthonormalize makes the p columns of the n×p row-major x orthonormal by
// classical Gram–Schmidt applied twice; false when a column vanishes.
func orthonormalize(x []float64, n, p int) bool {
	col := make([]float64, n)
	for c := 0; c < p; c++ {
		for i := 0; i < n; i++ {
			col[i] = x[i*p+c]
		}
		norm0 := math.Sqrt(dot(col, col))
		for pass := 0; pass < 2; pass++ {
			for b := 0; b < c; b++ {
				s := 0.0
				for i := 0; i < n; i++ {
					s += x[i*p+b] * col[i]
				}
				for i := 0; i < n; i++ {
					col[i] -= s * x[i*p+b]
				}
			}
		}
		norm := math.Sqrt(dot(col, col))
		if norm == 0 || norm < 1e-12*norm0 {
			return false
		}
		for i := 0; i < n; i++ {
			x[i*p+c] = col[i] / norm
		}
	}
	return true
}

// iterativeCandidates returns a large component's top min(k, n) eigenpairs
// (by value, or by magnitude), or ok false to fall back to the dense path.
func iterativeCandidates(ctx context.Context, s *sparse, comp []int, k int, byMagnitude bool, seed uint64) (vals []float64, vecs [][]float64, ok bool, err error) {
	t := s.sub(comp)
	vals, vecs, ok, err = topIterative(ctx, t, k, 1, math.Inf(-1), seed)
	if !ok || err != nil || !byMagnitude {
		return vals, vecs, ok, err
	}
	// Only negative eigenvalues larger in magnitude than the k-th positive
	// one can be chosen.
	nv, nvecs, ok, err := topIterative(ctx, t, k, -1, vals[len(vals)-1], seed)
	if !ok || err != nil {
		return nil, nil, ok, err
	}
	for i := range nv {
		nv[i] = -nv[i]
	}
	type pair struct {
		v   float64
		vec []float64
		neg bool
	}
	all := make([]pair, 0, 2*k)
	for i := range vals {
		all = append(all, pair{vals[i], vecs[i], false})
	}
	for i := range nv {
		all = append(all, pair{nv[i], nvecs[i], true})
	}
	sort.SliceStable(all, func(a, b int) bool { return math.Abs(all[a].v) > math.Abs(all[b].v) })
	vals, vecs = vals[:0], vecs[:0]
	for _, x := range all[:min(k, len(all))] {
		vals = append(vals, x.v)
		vecs = append(vecs, x.vec)
	}
	return vals, vecs, true, nil
}
