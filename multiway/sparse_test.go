package multiway

import (
	"context"
	"math"
	"reflect"
	"sort"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
)

// matchEIGDense is MatchEIG over the dense l×k vectors, block by block,
// as the method is written: the reference for the per-component version.
func matchEIGDense(s *sparse, m int) []clear.Pair {
	e, _ := s.topEigenBy(context.Background(), m, true, &Options{})
	k := e.k
	U := e.dense()
	for j := 0; j < k; j++ {
		f := math.Sqrt(math.Abs(e.Val[j]))
		for i := 0; i < s.l; i++ {
			U[i*k+j] *= f
		}
	}
	type cand struct {
		v    float64
		r, c int
	}
	var pairs []clear.Pair
	for vi := 0; vi < s.views(); vi++ {
		for vj := vi + 1; vj < s.views(); vj++ {
			oi, oj, mi, mj := s.offset[vi], s.offset[vj], s.size(vi), s.size(vj)
			z := make([]float64, mi*mj)
			for a := range mi {
				for b := range mj {
					if v := dot(U[(oi+a)*k:(oi+a+1)*k], U[(oj+b)*k:(oj+b+1)*k]); v >= matchEIGThreshold {
						z[a*mj+b] = v
					}
				}
			}
			var cands []cand
			for a := range mi {
				best := 0
				for b := 1; b < mj; b++ {
					if z[a*mj+b] > z[a*mj+best] {
						best = b
					}
				}
				cands = append(cands, cand{z[a*mj+best], a, best})
			}
			for b := range mj {
				best := 0
				for a := 1; a < mi; a++ {
					if z[a*mj+b] > z[best*mj+b] {
						best = a
					}
				}
				cands = append(cands, cand{z[best*mj+b], best, b})
			}
			sort.SliceStable(cands, func(x, y int) bool { return cands[x].v > cands[y].v })
			ru, cu := make([]bool, mi), make([]bool, mj)
			for _, c := range cands {
				if c.v <= 0 {
					break
				}
				if !ru[c.r] && !cu[c.c] {
					ru[c.r], cu[c.c] = true, true
					pairs = append(pairs, clear.Pair{A: oi + c.r, B: oj + c.c})
				}
			}
		}
	}
	sortPairs(pairs)
	return pairs
}

func TestPerComponentEqualsDense(t *testing.T) {
	for _, c := range []SynthConfig{
		{Items: 30, Views: 6, ObsRatio: 0.5, Mismatch: 0.2, Seed: 4},
		{Items: 60, Views: 4, ObsRatio: 0.3, Mismatch: 0.05, Seed: 8}, // many components
		{Items: 40, Views: 8, ObsRatio: 0.9, Mismatch: 0.3, Seed: 5},
	} {
		p := Synthesize(c).Problem
		s, err := newSparse(p)
		if err != nil {
			t.Fatal(err)
		}
		m, _ := EstimateUniverse(context.Background(), p)
		r, err := Run(context.Background(), MatchEIG, p, &Options{Universe: m})
		if err != nil {
			t.Fatal(err)
		}
		if want := matchEIGDense(s, m); !reflect.DeepEqual(r.Pairs, want) {
			t.Errorf("%+v: matcheig per component differs from dense (%d vs %d pairs)", c, len(r.Pairs), len(want))
		}
		// Spectral's rounding: searching only the component equals
		// searching the whole view.
		e, _ := s.topEigen(context.Background(), m, &Options{})
		for _, row := range e.rows {
			if n := math.Sqrt(dot(row, row)); n > 0 {
				for j := range row {
					row[j] /= n
				}
			}
		}
		U := e.dense()
		k := e.k
		full := greedyRound(s, nil, func(i, j int) float64 { return dot(U[i*k:(i+1)*k], U[j*k:(j+1)*k]) }, func(d float64) bool { return d > 0.5 })
		byComp := greedyRound(s, e.comp, e.dot, func(d float64) bool { return d > 0.5 })
		if !reflect.DeepEqual(full, byComp) {
			t.Errorf("%+v: spectral rounding per component differs", c)
		}
	}
}

// TestIterativeEqualsDense checks that large components decomposed by
// the Chebyshev-filtered subspace iteration give the methods the same
// answers as the dense decomposition.
func TestIterativeEqualsDense(t *testing.T) {
	for _, c := range []SynthConfig{
		{Items: 30, Views: 40, ObsRatio: 0.5, Mismatch: 0.1, Seed: 11}, // one component of 600
		{Items: 20, Views: 60, ObsRatio: 0.6, Mismatch: 0.3, Seed: 12}, // 720, heavy noise
	} {
		p := Synthesize(c).Problem
		s, _ := newSparse(p)
		m, _ := EstimateUniverse(context.Background(), p)
		comps := s.components()
		if n := len(comps[0]); !useIterative(n, m) {
			t.Fatalf("%+v: component %d, universe %d: not on the iterative path", c, n, m)
		}
		for _, method := range []string{Spectral, MatchEIG, NMFSync} {
			it, err := Run(context.Background(), method, p, &Options{Universe: m})
			if err != nil {
				t.Fatal(err)
			}
			denseOnly = true
			de, err := Run(context.Background(), method, p, &Options{Universe: m})
			denseOnly = false
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(it.Pairs, de.Pairs) {
				t.Errorf("%+v %s: iterative %d pairs, dense %d", c, method, len(it.Pairs), len(de.Pairs))
			}
		}
		// The eigenvalues agree.
		e1, _ := s.topEigenBy(context.Background(), m, true, &Options{})
		denseOnly = true
		e2, _ := s.topEigenBy(context.Background(), m, true, &Options{})
		denseOnly = false
		for j := range e1.Val {
			if math.Abs(e1.Val[j]-e2.Val[j]) > 1e-8 {
				t.Errorf("%+v: eigenvalue %d: %v vs %v", c, j, e1.Val[j], e2.Val[j])
				break
			}
		}
	}
}
