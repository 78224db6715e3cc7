package clear

import (
	"cmp"
	"fmt"
	"slices"
)

// MergeStats counts what MergeConsistent did.
type MergeStats struct {
	// Merges counts the items joined to another, Refused the pairs of
	// linked items left apart because they share a view.
	Merges  int `json:"merges"`
	Refused int `json:"refused"`
}

// MergeConsistent joins two items of item (an assignment such as
// Result.Item; −1 for none) that at least minLinks of p's associations
// link, when no view would then hold two observations of the joined item:
// union-find wherever it stays cycle consistent. It is not part of CLEAR:
// a step after it for inputs where CLEAR's universe estimate, which on
// sparse associations (each observation linked to a few of the views that
// hold its item) exceeds the true universe, splits items that no conflict
// divides. Pairs of items are served by the number of associations
// linking them, most first (ties by item), so the best-supported merge
// wins where two conflict. item is not changed; the result's items are
// the lowest of each joined set. Links never leave a connected component.
func MergeConsistent(p *Problem, item []int, minLinks int) ([]int, MergeStats, error) {
	var st MergeStats
	vi, err := p.validate()
	if err != nil {
		return nil, st, err
	}
	if len(item) != vi.numObs() {
		return nil, st, fmt.Errorf("clear: %d items for %d observations", len(item), vi.numObs())
	}
	type link struct{ a, b, n int }
	links := map[[2]int]int{}
	for _, a := range p.Associations {
		x, y := item[a.A], item[a.B]
		if x >= 0 && y >= 0 && x != y {
			links[[2]int{min(x, y), max(x, y)}]++
		}
	}
	var cands []link
	for k, n := range links {
		if n >= max(minLinks, 1) {
			cands = append(cands, link{k[0], k[1], n})
		}
	}
	slices.SortFunc(cands, func(x, y link) int { return cmp.Or(y.n-x.n, x.a-y.a, x.b-y.b) })
	views := map[int][]int32{} // each item's views, increasing
	for o, it := range item {
		if it >= 0 {
			views[it] = append(views[it], int32(vi.view(o)))
		}
	}
	parent := map[int]int{}
	find := func(x int) int {
		for {
			p, ok := parent[x]
			if !ok {
				return x
			}
			if gp, ok := parent[p]; ok {
				parent[x] = gp
			}
			x = p
		}
	}
	for _, c := range cands {
		ra, rb := find(c.a), find(c.b)
		if ra == rb {
			continue
		}
		merged, ok := mergeDisjoint(views[ra], views[rb])
		if !ok {
			st.Refused++
			continue
		}
		root, other := min(ra, rb), max(ra, rb)
		parent[other] = root
		views[root] = merged
		delete(views, other)
		st.Merges++
	}
	out := make([]int, len(item))
	for o, it := range item {
		out[o] = it
		if it >= 0 {
			out[o] = find(it)
		}
	}
	return out, st, nil
}

// mergeDisjoint merges two increasing lists, false when they share a
// value.
func mergeDisjoint(a, b []int32) ([]int32, bool) {
	out := make([]int32, 0, len(a)+len(b))
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] == b[0]:
			return nil, false
		case a[0] < b[0]:
			out, a = append(out, a[0]), a[1:]
		default:
			out, b = append(out, b[0]), b[1:]
		}
	}
	return append(append(out, a...), b...), true
}
