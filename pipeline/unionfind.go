package pipeline

import (
	"fmt"

	"github.com/clearmatch/clearmatch/clear"
)

// unionFind builds tracks as SfM engines do (COLMAP, OpenMVG): each
// connected component of the association graph is one track, whatever
// it holds, so a track may hold two keypoints of one image. It stands in
// for CLEAR when SolveOptions.UnionFind asks for the comparison. Items
// are numbered by first appearance, as CLEAR's.
func unionFind(p *clear.Problem) (*clear.Result, error) {
	comp, err := p.Components()
	if err != nil {
		return nil, fmt.Errorf("pipeline: %w", err)
	}
	r := &clear.Result{Item: make([]int, len(comp))}
	item := map[int32]int{}
	size := map[int32]int{}
	for o, c := range comp {
		it, ok := item[c]
		if !ok {
			it = len(item)
			item[c] = it
		}
		r.Item[o] = it
		size[c]++
		r.LargestComponent = max(r.LargestComponent, size[c])
	}
	r.Items, r.UniverseSize, r.Components = len(item), len(item), len(item)
	return r, nil
}

// keepConsistent gives every component of the association graph that
// holds no two observations of one view one item of its own, as
// union-find would, and leaves CLEAR's items in the others: CLEAR is
// needed only where the matches conflict (SolveOptions.KeepConsistent).
// Items stay numbered by first appearance.
func keepConsistent(p *clear.Problem, res *clear.Result) error {
	comp, err := p.Components()
	if err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	conflict := map[int32]bool{}
	seen := map[[2]int32]bool{} // (component, view)
	o := 0
	for v, n := range p.ViewSizes {
		for range n {
			key := [2]int32{comp[o], int32(v)}
			if seen[key] {
				conflict[comp[o]] = true
			}
			seen[key] = true
			o++
		}
	}
	item := make([]int, len(res.Item))
	renumber := map[[2]int]int{} // (kind, id) → item: kind 0 a component, 1 CLEAR's item
	for o, it := range res.Item {
		key := [2]int{1, it}
		if !conflict[comp[o]] {
			key = [2]int{0, int(comp[o])}
		}
		n, ok := renumber[key]
		if !ok {
			n = len(renumber)
			renumber[key] = n
		}
		item[o] = n
	}
	res.Item, res.Items = item, len(renumber)
	return nil
}
