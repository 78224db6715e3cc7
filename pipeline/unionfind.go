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
