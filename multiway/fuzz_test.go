package multiway

import (
	"context"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
)

// FuzzRun builds a small problem from bytes (view sizes, then associations
// as index pairs, out-of-range indices included) and checks that every
// method returns an error or an answer that keeps its guarantees, never a
// panic.
func FuzzRun(f *testing.F) {
	f.Add([]byte{2, 2, 2, 0, 0, 2, 1, 3, 2, 4, 3, 5, 0, 4})
	f.Add([]byte{3, 1, 0, 0, 3, 1, 3, 2, 3})
	f.Add([]byte{1, 0, 1, 0, 1, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 1 {
			return
		}
		nv := int(data[0]%5) + 1
		if len(data) < 1+nv {
			return
		}
		p := &clear.Problem{}
		for _, b := range data[1 : 1+nv] {
			p.ViewSizes = append(p.ViewSizes, int(b%6))
		}
		rest := data[1+nv:]
		for k := 0; k+1 < len(rest) && k < 60; k += 2 {
			p.Associations = append(p.Associations, clear.Association{A: int(rest[k] % 32), B: int(rest[k+1] % 32)})
		}
		l := p.NumObservations()
		view := make([]int, 0, l)
		for v, n := range p.ViewSizes {
			for range n {
				view = append(view, v)
			}
		}
		for _, m := range Methods {
			r, err := Run(context.Background(), m, p, &Options{MaxIter: 60})
			if err != nil {
				continue
			}
			for _, pr := range r.Pairs {
				if pr.A >= pr.B || pr.B >= l {
					t.Fatalf("%s: pair %v of %d observations", m, pr, l)
				}
			}
			if partition(m) && (len(r.Item) != l || !eval.IsCycleConsistent(l, r.Pairs) || !eval.IsDistinct(view, r.Pairs)) {
				t.Fatalf("%s: a partition that is not one: %v", m, r.Item)
			}
		}
	})
}
