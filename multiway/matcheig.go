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
// column's maximum, sorted in descending order (zeros dropped), are
// accepted while their row and column are free. The output is distinct in
// every block but not cycle consistent in general.
func matchEIG(ctx context.Context, s *sparse, m int, opts *Options) (*Result, error) {
	e, err := s.topEigen(ctx, m, true)
	if err != nil {
		return nil, err
	}
	k := e.k
	for j := 0; j < k; j++ {
		f := math.Sqrt(math.Abs(e.Val[j]))
		for i := 0; i < s.l; i++ {
			e.Vec[i*k+j] *= f
		}
	}
	type cand struct {
		v    float64
		r, c int
	}
	var pairs []clear.Pair
	var z []float64
	var cands []cand
	nv := s.views()
	for vi := 0; vi < nv; vi++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		opts.progress(vi, nv)
		for vj := vi + 1; vj < nv; vj++ {
			oi, oj := s.offset[vi], s.offset[vj]
			mi, mj := s.size(vi), s.size(vj)
			if mi == 0 || mj == 0 {
				continue
			}
			z = z[:0]
			for a := 0; a < mi; a++ {
				ra := e.row(oi + a)
				for b := 0; b < mj; b++ {
					v := dot(ra, e.row(oj+b))
					if v < matchEIGThreshold {
						v = 0
					}
					z = append(z, v)
				}
			}
			cands = cands[:0]
			for a := 0; a < mi; a++ {
				best := 0
				for b := 1; b < mj; b++ {
					if z[a*mj+b] > z[a*mj+best] {
						best = b
					}
				}
				cands = append(cands, cand{z[a*mj+best], a, best})
			}
			for b := 0; b < mj; b++ {
				best := 0
				for a := 1; a < mi; a++ {
					if z[a*mj+b] > z[best*mj+b] {
						best = a
					}
				}
				cands = append(cands, cand{z[best*mj+b], best, b})
			}
			sort.SliceStable(cands, func(x, y int) bool { return cands[x].v > cands[y].v })
			rowUsed := make([]bool, mi)
			colUsed := make([]bool, mj)
			for _, c := range cands {
				if c.v <= 0 {
					break
				}
				if rowUsed[c.r] || colUsed[c.c] {
					continue
				}
				rowUsed[c.r], colUsed[c.c] = true, true
				pairs = append(pairs, clear.Pair{A: oi + c.r, B: oj + c.c})
			}
		}
	}
	opts.progress(nv, nv)
	return &Result{Pairs: pairs}, nil
}
