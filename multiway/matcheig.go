package multiway

import (
	"context"
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/clear"
)

// matchEIGThreshold is MatchEIG's threshold t on the entries of U_i U_jᵀ.
const matchEIGThreshold = 0.25

// matchEIG is MatchEIG: Maset, Arrigoni and Fusiello, "Practical and
// efficient multi-view matching", ICCV 2017.
//
// U, D are the m̂ eigenpairs of P of largest magnitude and U ← U·sqrt(|D|).
// For every view pair i < j, Z = U_i U_jᵀ with entries below 0.25 set to 0
// is made a partial permutation greedily: every row's maximum and every
// column's maximum (the first on ties), sorted in descending order, zeros
// dropped, are accepted while their row and column are free. The output is
// distinct in every block but not cycle consistent in general.
//
// Entries of Z between different connected components of P are exactly 0
// (their eigenvectors do not overlap), so only each component's own pairs
// are computed: a zero maximum is dropped either way, and the nonzero
// candidates keep their dense order (rows by index, then columns).
func matchEIG(ctx context.Context, s *sparse, m int, opts *Options) (*Result, error) {
	e, err := s.topEigenBy(ctx, m, true, opts)
	if err != nil {
		return nil, err
	}
	f := make([]float64, e.k)
	for j, v := range e.Val {
		f[j] = math.Sqrt(math.Abs(v))
	}
	e.scale(f)
	// Entries of Z at or above the threshold, per view pair.
	nv := s.views()
	blocks := make(map[[2]int][]eigEntry)
	for _, comp := range e.comps {
		for x, a := range comp {
			for _, b := range comp[x+1:] {
				if s.view[a] == s.view[b] {
					continue
				}
				if v := e.dot(a, b); v >= matchEIGThreshold {
					k := [2]int{s.view[a], s.view[b]}
					blocks[k] = append(blocks[k], eigEntry{a, b, v})
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	row := func(x eigEntry) int { return x.a }
	col := func(x eigEntry) int { return x.b }
	var pairs []clear.Pair
	for vi := 0; vi < nv; vi++ {
		for vj := vi + 1; vj < nv; vj++ {
			es := blocks[[2]int{vi, vj}]
			if len(es) == 0 {
				continue
			}
			// Row maxima (first column on ties), then column maxima (first
			// row on ties), in index order.
			cands := appendMaxima(nil, es, row, col)
			cands = appendMaxima(cands, es, col, row)
			sort.SliceStable(cands, func(x, y int) bool { return cands[x].v > cands[y].v })
			rowUsed, colUsed := map[int]bool{}, map[int]bool{}
			for _, c := range cands {
				if rowUsed[c.a] || colUsed[c.b] {
					continue
				}
				rowUsed[c.a], colUsed[c.b] = true, true
				pairs = append(pairs, clear.Pair{A: c.a, B: c.b})
			}
		}
	}
	return &Result{Pairs: pairs}, nil
}

// eigEntry is one entry of Z = U_i U_jᵀ: observations a (in the lower
// view) and b, and its value.
type eigEntry struct {
	a, b int
	v    float64
}

// appendMaxima sorts es by group, then by the other index, and appends to
// cands the largest entry of every group, the first on ties.
func appendMaxima(cands, es []eigEntry, group, other func(eigEntry) int) []eigEntry {
	sort.Slice(es, func(x, y int) bool {
		if gx, gy := group(es[x]), group(es[y]); gx != gy {
			return gx < gy
		}
		return other(es[x]) < other(es[y])
	})
	for x := 0; x < len(es); {
		y, best := x, x
		for ; y < len(es) && group(es[y]) == group(es[x]); y++ {
			if es[y].v > es[best].v {
				best = y
			}
		}
		cands = append(cands, es[best])
		x = y
	}
	return cands
}
