package pipeline

import (
	"fmt"

	"github.com/clearmatch/clearmatch/clear"
)

// dropForeign takes out of their items the observations CLEAR assigned to
// an item of another component of the association graph, and returns the
// items (−1 for those) and how many it took out.
//
// CLEAR gives every observation an item. When a component has more
// observations in a view than it has items, the rest go to the view's
// lowest free items, which belong to other components: nothing in the
// input associates them with their new track-mates, and on repeated
// texture the overflow of many components gathers into false tracks
// across many views. An item's home is the component holding most of its
// observations (on a tie, its first observation's); observations of other
// components leave.
func dropForeign(p *clear.Problem, item []int) ([]int, int, error) {
	comp, err := p.Components()
	if err != nil {
		return nil, 0, fmt.Errorf("pipeline: %w", err)
	}
	if len(comp) != len(item) {
		return nil, 0, fmt.Errorf("pipeline: %d items for %d observations", len(item), len(comp))
	}
	home := itemHomes(item, comp)
	if len(home) == 0 {
		return item, 0, nil
	}
	out := make([]int, len(item))
	dropped := 0
	for o, it := range item {
		out[o] = it
		if h, ok := home[it]; ok && comp[o] != h {
			out[o] = -1
			dropped++
		}
	}
	return out, dropped, nil
}

// itemHomes returns the home component (see dropForeign) of each item
// whose observations lie in more than one component. Only those are
// counted, so memory follows the items, not items × components.
func itemHomes(item []int, comp []int32) map[int]int32 {
	n := 0
	for _, it := range item {
		n = max(n, it+1)
	}
	first := make([]int32, n) // the component of the item's first observation
	seen := make([]bool, n)
	counts := map[int]map[int32]int{} // mixed item → component → observations
	for o, it := range item {
		switch {
		case it < 0:
		case !seen[it]:
			seen[it], first[it] = true, comp[o]
		case comp[o] != first[it] && counts[it] == nil:
			counts[it] = map[int32]int{}
		}
	}
	for o, it := range item {
		if it >= 0 && counts[it] != nil {
			counts[it][comp[o]]++
		}
	}
	home := make(map[int]int32, len(counts))
	for it, cs := range counts {
		best := first[it]
		for c, k := range cs {
			// Most observations; on a tie the first observation's (best
			// leaves it only for more), else the lower label, so that map
			// order does not matter.
			if k > cs[best] || k == cs[best] && best != first[it] && c < best {
				best = c
			}
		}
		home[it] = best
	}
	return home
}
