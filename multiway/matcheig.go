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
	type entry struct {
		a, b int // global observations, a in the lower view
		v    float64
	}
	nv := s.views()
	blocks := make(map[[2]int][]entry)
	for _, comp := range e.comps {
		for x, a := range comp {
			for _, b := range comp[x+1:] {
				if s.view[a] == s.view[b] {
					continue
				}
				if v := e.dot(a, b); v >= matchEIGThreshold {
					k := [2]int{s.view[a], s.view[b]}
					blocks[k] = append(blocks[k], entry{a, b, v})
				}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type cand struct {
		v    float64
		r, c int
	}
	var pairs []clear.Pair
	for vi := 0; vi < nv; vi++ {
		for vj := vi + 1; vj < nv; vj++ {
			es := blocks[[2]int{vi, vj}]
			if len(es) == 0 {
				continue
			}
			// Row maxima (first column on ties), then column maxima (first
			// row on ties), in index order.
			sort.Slice(es, func(x, y int) bool {
				if es[x].a != es[y].a {
					return es[x].a < es[y].a
				}
				return es[x].b < es[y].b
			})
			var cands []cand
			for x := 0; x < len(es); {
				y, best := x, x
				for ; y < len(es) && es[y].a == es[x].a; y++ {
					if es[y].v > es[best].v {
						best = y
					}
				}
				cands = append(cands, cand{es[best].v, es[best].a, es[best].b})
				x = y
			}
			sort.Slice(es, func(x, y int) bool {
				if es[x].b != es[y].b {
					return es[x].b < es[y].b
				}
				return es[x].a < es[y].a
			})
			for x := 0; x < len(es); {
				y, best := x, x
				for ; y < len(es) && es[y].b == es[x].b; y++ {
					if es[y].v > es[best].v {
						best = y
					}
				}
				cands = append(cands, cand{es[best].v, es[best].a, es[best].b})
				x = y
			}
			sort.SliceStable(cands, func(x, y int) bool { return cands[x].v > cands[y].v })
			rowUsed, colUsed := map[int]bool{}, map[int]bool{}
			for _, c := range cands {
				if rowUsed[c.r] || colUsed[c.c] {
					continue
				}
				rowUsed[c.r], colUsed[c.c] = true, true
				pairs = append(pairs, clear.Pair{A: c.r, B: c.c})
			}
		}
	}
	return &Result{Pairs: pairs}, nil
}
