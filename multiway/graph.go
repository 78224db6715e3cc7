package multiway

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/internal/assignment"
	"gonum.org/v1/gonum/mat"
)

// sparse is the aggregate association matrix P of a problem: identity
// diagonal blocks and the symmetrized cross-view associations, as
// compressed rows with sorted columns. The identity is implicit.
type sparse struct {
	l      int
	view   []int // view of each observation
	offset []int // first observation of each view; len = views+1
	start  []int // row r is col[start[r]:start[r+1]], val likewise
	col    []int
	val    []float64
	comps  [][]int // components(), once computed
}

// newSparse validates p and builds its P. Associations inside one view are
// dropped (the diagonal blocks are I); an association listed twice keeps
// its larger weight; a Directed problem is symmetrized as (P + Pᵀ)/2.
func newSparse(p *clear.Problem) (*sparse, error) {
	s := &sparse{offset: make([]int, len(p.ViewSizes)+1)}
	for v, n := range p.ViewSizes {
		if n < 0 {
			return nil, &clear.InputError{Index: -1, Err: fmt.Errorf("view %d has negative size %d", v, n)}
		}
		if n > clear.MaxObservations-s.offset[v] {
			return nil, &clear.InputError{Index: -1, Err: fmt.Errorf("view sizes add up to more than %d observations", clear.MaxObservations)}
		}
		s.offset[v+1] = s.offset[v] + n
	}
	s.l = s.offset[len(p.ViewSizes)]
	s.view = make([]int, s.l)
	for v := range p.ViewSizes {
		for i := s.offset[v]; i < s.offset[v+1]; i++ {
			s.view[i] = v
		}
	}
	type entry struct {
		r, c int
		w    float64
	}
	es := make([]entry, 0, 2*len(p.Associations))
	for k, a := range p.Associations {
		if a.A < 0 || a.A >= s.l || a.B < 0 || a.B >= s.l {
			return nil, &clear.InputError{Index: k, Err: fmt.Errorf("observation index out of range [0, %d) in (%d, %d)", s.l, a.A, a.B)}
		}
		w := a.W
		if math.IsNaN(w) || math.IsInf(w, 0) || w < 0 || w > 1 {
			return nil, &clear.InputError{Index: k, Err: fmt.Errorf("weight %v of (%d, %d) is not in (0, 1]", w, a.A, a.B)}
		}
		if w == 0 {
			w = 1
		}
		if s.view[a.A] == s.view[a.B] {
			continue
		}
		if p.Directed {
			w /= 2
		}
		es = append(es, entry{a.A, a.B, w}, entry{a.B, a.A, w})
	}
	sort.Slice(es, func(i, j int) bool {
		if es[i].r != es[j].r {
			return es[i].r < es[j].r
		}
		return es[i].c < es[j].c
	})
	s.start = make([]int, s.l+1)
	for i := 0; i < len(es); {
		j := i
		w := 0.0
		for ; j < len(es) && es[j].r == es[i].r && es[j].c == es[i].c; j++ {
			if p.Directed {
				w += es[j].w // (P + Pᵀ)/2: the two directions add
			} else {
				w = max(w, es[j].w)
			}
		}
		s.col = append(s.col, es[i].c)
		s.val = append(s.val, min(w, 1))
		s.start[es[i].r+1]++
		i = j
	}
	for r := 0; r < s.l; r++ {
		s.start[r+1] += s.start[r]
	}
	return s, nil
}

// views returns the number of views.
func (s *sparse) views() int { return len(s.offset) - 1 }

// size returns the number of observations of view v.
func (s *sparse) size(v int) int { return s.offset[v+1] - s.offset[v] }

// at returns P[r][c].
func (s *sparse) at(r, c int) float64 {
	if r == c {
		return 1
	}
	row := s.col[s.start[r]:s.start[r+1]]
	k := sort.SearchInts(row, c)
	if k < len(row) && row[k] == c {
		return s.val[s.start[r]+k]
	}
	return 0
}

// mulDense returns P·X for X with l rows of width k (row-major).
func (s *sparse) mulDense(x []float64, k int) []float64 {
	out := make([]float64, len(x))
	copy(out, x) // identity diagonal
	for r := 0; r < s.l; r++ {
		dst := out[r*k : (r+1)*k]
		for e := s.start[r]; e < s.start[r+1]; e++ {
			w, src := s.val[e], x[s.col[e]*k:(s.col[e]+1)*k]
			for j, v := range src {
				dst[j] += w * v
			}
		}
	}
	return out
}

// components returns the connected components of P's graph, each sorted,
// in the order of their smallest observation.
func (s *sparse) components() [][]int {
	if s.comps != nil {
		return s.comps
	}
	seen := make([]bool, s.l)
	var out [][]int
	for r := 0; r < s.l; r++ {
		if seen[r] {
			continue
		}
		seen[r] = true
		comp := []int{r}
		for q := 0; q < len(comp); q++ {
			v := comp[q]
			for e := s.start[v]; e < s.start[v+1]; e++ {
				if c := s.col[e]; !seen[c] {
					seen[c] = true
					comp = append(comp, c)
				}
			}
		}
		sort.Ints(comp)
		out = append(out, comp)
	}
	s.comps = out
	return out
}

// eigenpairs are k eigenpairs of P, selected largest first. An eigenvector
// of P lives on one connected component, so the l×k matrix of vectors is
// stored by component: observation i has nonzero entries only in the
// columns cols[comp[i]] (increasing), whose values are rows[i]. Rows of
// different components are orthogonal; memory is Σ |component|·(its
// selected vectors), at most l·min(k, largest component).
type eigenpairs struct {
	Val   []float64
	k     int
	comp  []int       // component of each observation
	cols  [][]int     // selected columns of each component
	rows  [][]float64 // each observation's values at its component's columns
	comps [][]int     // members of each component, sorted
}

// topEigen returns the k eigenpairs of P with the largest eigenvalues
// (byMagnitude: the largest |λ|). P is block diagonal over its connected
// components up to a permutation, so its eigenpairs are those of the
// components: each is decomposed densely (cubic in the component's size,
// never in l) and the k best are taken over all. Equal keys are taken in
// the order of their components, then of the eigenvalues within one.
// Singletons contribute λ = 1 with a unit vector, without a decomposition.
// A large component of which few eigenpairs are wanted is decomposed
// iteratively (topIterative), with the dense path as its fallback.
func (s *sparse) topEigen(ctx context.Context, k int, opts *Options) (eigenpairs, error) {
	return s.topEigenBy(ctx, k, false, opts)
}

func (s *sparse) topEigenBy(ctx context.Context, k int, byMagnitude bool, opts *Options) (eigenpairs, error) {
	k = min(k, s.l)
	type cand struct {
		key, val float64
		comp     int
		vec      []float64 // over the component's vertices
	}
	comps := s.components()
	var cands []cand
	for ci, comp := range comps {
		if err := ctx.Err(); err != nil {
			return eigenpairs{}, err
		}
		n := len(comp)
		if n == 1 {
			cands = append(cands, cand{key: 1, val: 1, comp: ci, vec: []float64{1}})
			continue
		}
		if n > 200 {
			opts.progress(ci, len(comps))
		}
		if want := min(k, n); useIterative(n, want) {
			vals, vecs, ok, err := iterativeCandidates(ctx, s, comp, want, byMagnitude, opts.seed())
			if err != nil {
				return eigenpairs{}, err
			}
			if ok {
				for j, v := range vals {
					key := v
					if byMagnitude {
						key = math.Abs(v)
					}
					cands = append(cands, cand{key: key, val: v, comp: ci, vec: vecs[j]})
				}
				continue
			}
		}
		pos := make(map[int]int, n)
		for i, v := range comp {
			pos[v] = i
		}
		d := mat.NewSymDense(n, nil)
		for i, v := range comp {
			d.SetSym(i, i, 1)
			for e := s.start[v]; e < s.start[v+1]; e++ {
				if j := pos[s.col[e]]; j > i {
					d.SetSym(i, j, s.val[e])
				}
			}
		}
		var es mat.EigenSym
		if !es.Factorize(d, true) {
			return eigenpairs{}, errNotConverged(n)
		}
		vals := es.Values(nil)
		var vecs mat.Dense
		es.VectorsTo(&vecs)
		// Keep this component's best min(k, n): no more can be chosen.
		order := make([]int, n)
		for i := range order {
			order[i] = n - 1 - i // descending eigenvalue
		}
		if byMagnitude {
			sortByMagnitude(order, vals)
		}
		for _, j := range order[:min(k, n)] {
			v := make([]float64, n)
			mat.Col(v, j, &vecs)
			key := vals[j]
			if byMagnitude {
				key = math.Abs(key)
			}
			cands = append(cands, cand{key: key, val: vals[j], comp: ci, vec: v})
		}
	}
	opts.progress(len(comps), len(comps))
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].key > cands[b].key })
	e := eigenpairs{Val: make([]float64, k), k: k, comp: make([]int, s.l), cols: make([][]int, len(comps)), rows: make([][]float64, s.l), comps: comps}
	for ci, comp := range comps {
		for _, v := range comp {
			e.comp[v] = ci
		}
	}
	for j, c := range cands[:k] {
		e.Val[j] = c.val
		e.cols[c.comp] = append(e.cols[c.comp], j)
		for i, v := range comps[c.comp] {
			e.rows[v] = append(e.rows[v], c.vec[i])
		}
	}
	return e, nil
}

// dot returns the inner product of rows i and j.
func (e eigenpairs) dot(i, j int) float64 {
	if e.comp[i] != e.comp[j] {
		return 0
	}
	return dot(e.rows[i], e.rows[j])
}

// scale multiplies column j by f[j].
func (e eigenpairs) scale(f []float64) {
	for i, r := range e.rows {
		for t, j := range e.cols[e.comp[i]] {
			r[t] *= f[j]
		}
	}
}

// dense returns the vectors as an l×k row-major matrix.
func (e eigenpairs) dense() []float64 {
	out := make([]float64, len(e.rows)*e.k)
	for i, r := range e.rows {
		for t, j := range e.cols[e.comp[i]] {
			out[i*e.k+j] = r[t]
		}
	}
	return out
}

// greedyRound is the rounding of Spectral and MatchLift: observations in
// index order; an unassigned one opens a new item, and for every later
// view the unassigned observation with the largest inner product (dot)
// with it, the first on ties, joins the item when the product passes
// accept. When group is not nil, observations of different groups have
// inner product 0 (and accept(0) is false): only the group's own members
// are searched, with the same result. It returns the item of every
// observation, numbered by first appearance.
func greedyRound(s *sparse, group []int, dot func(i, j int) float64, accept func(float64) bool) []int {
	item := make([]int, s.l)
	for i := range item {
		item[i] = -1
	}
	// Candidates of observation i in view v: members of i's group in v.
	members := map[[2]int][]int{}
	if group != nil {
		for i, g := range group {
			k := [2]int{g, s.view[i]}
			members[k] = append(members[k], i)
		}
	}
	next := 0
	for i := 0; i < s.l; i++ {
		if item[i] >= 0 {
			continue
		}
		item[i] = next
		for v := s.view[i] + 1; v < s.views(); v++ {
			best, bestDot := -1, math.Inf(-1)
			try := func(j int) {
				if item[j] < 0 {
					if d := dot(i, j); d > bestDot {
						best, bestDot = j, d
					}
				}
			}
			if group != nil {
				for _, j := range members[[2]int{group[i], v}] {
					try(j)
				}
			} else {
				for j := s.offset[v]; j < s.offset[v+1]; j++ {
					try(j)
				}
			}
			if best >= 0 && accept(bestDot) {
				item[best] = next
			}
		}
		next++
	}
	return item
}

func dot(a, b []float64) float64 {
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// hungarianMax assigns each of the r rows of the r×c (r ≤ c) row-major
// weight matrix w to a distinct column maximizing the total weight, and
// returns the column of every row: the minimum assignment of the costs −w.
func hungarianMax(w []float64, r, c int) []int {
	cost := make([]float64, len(w))
	for i, x := range w {
		cost[i] = -x
	}
	return assignment.Min(cost, r, c)
}

// sortByMagnitude orders the indices (given in descending eigenvalue order)
// by descending |vals|, stably.
func sortByMagnitude(order []int, vals []float64) {
	sort.SliceStable(order, func(a, b int) bool {
		return math.Abs(vals[order[a]]) > math.Abs(vals[order[b]])
	})
}
