package clear

import (
	"context"
	"math"
	"slices"
	"testing"
)

// TestPivotsAreAMergeOfComponentSequences checks what a distributed CLEAR
// relies on (docs/scale.md): each component's greedy pivot picks increase
// in (score, row) on their own, and the global pivots are exactly the m
// least (score, row) over every component's sequence, so a component can
// compute its sequence alone and one merge decides the rest.
func TestPivotsAreAMergeOfComponentSequences(t *testing.T) {
	for seed := uint64(1); seed <= 6; seed++ {
		cfg := SynthConfig{Items: 30, Views: 6, ObsRatio: 0.6, Mismatch: 0.15, Seed: seed}
		p := Synthesize(cfg).Problem
		s := &solver{ctx: context.Background(), thr: DefaultThreshold, p: p, sl: &slabs{}}
		if err := s.graph(); err != nil {
			t.Fatal(err)
		}
		if err := s.spectra(); err != nil {
			t.Fatal(err)
		}
		if err := s.embed(); err != nil {
			t.Fatal(err)
		}
		type pick struct{ key, row int64 }
		var union []pick
		for c := range s.comps {
			// Component c alone: all its eligible rows, in its own order.
			eligible := 0
			for i := range s.emb[c].verts {
				if !s.emb[c].zero[i] && s.emb[c].d > 0 {
					eligible++
				}
			}
			if eligible == 0 {
				continue
			}
			own, err := selectPivots(s.emb[c:c+1], eligible)
			if err != nil {
				t.Fatal(err)
			}
			e := &s.emb[c]
			var prev pick
			for k, li := range own.local {
				sum := 0.0
				for _, lj := range own.local[:k] {
					sum += math.Abs(dot(e.row(li), e.row(lj)))
				}
				cur := pick{tieKey(sum), int64(e.verts[li])}
				if k > 0 && (cur.key < prev.key || cur.key == prev.key && cur.row <= prev.row) {
					t.Fatalf("seed %d, component %d: pick %d (score %d, row %d) after (%d, %d)", seed, c, k, cur.key, cur.row, prev.key, prev.row)
				}
				prev = cur
				union = append(union, cur)
			}
		}
		slices.SortFunc(union, func(a, b pick) int {
			if a.key != b.key {
				return int(a.key - b.key)
			}
			return int(a.row - b.row)
		})
		for k := range s.piv.comp {
			got := int64(s.emb[s.piv.comp[k]].verts[s.piv.local[k]])
			if got != union[k].row {
				t.Fatalf("seed %d: pivot %d is row %d, the merge of the components' sequences gives row %d", seed, k, got, union[k].row)
			}
		}
	}
}
