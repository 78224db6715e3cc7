package pipeline

import (
	"fmt"
	"sort"

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
	comp, err := components(p, len(item))
	if err != nil {
		return nil, 0, err
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

// components labels each of the l observations with its component of the
// association graph: the lowest observation in it. Union–find over the
// associations in place of clear's Parts, which copies every association
// per part: this runs on every solve (BenchmarkDropForeign).
func components(p *clear.Problem, l int) ([]int32, error) {
	parent := make([]int32, l)
	for o := range parent {
		parent[o] = int32(o)
	}
	root := func(o int32) int32 {
		for parent[o] != o {
			parent[o] = parent[parent[o]]
			o = parent[o]
		}
		return o
	}
	ends := make([]int, len(p.ViewSizes)) // one past each view's last observation
	for v, n := range p.ViewSizes {
		ends[v] = n
		if v > 0 {
			ends[v] += ends[v-1]
		}
	}
	view := func(o int) int { return sort.SearchInts(ends, o+1) }
	for k, a := range p.Associations {
		if a.A < 0 || a.B < 0 || a.A >= l || a.B >= l {
			return nil, fmt.Errorf("pipeline: association %d (%d, %d) is not between the %d observations", k, a.A, a.B, l)
		}
		if view(a.A) == view(a.B) {
			continue // CLEAR drops it: nothing joins two keypoints of one image
		}
		ra, rb := root(int32(a.A)), root(int32(a.B))
		if ra > rb {
			ra, rb = rb, ra
		}
		parent[rb] = ra
	}
	for o := range parent {
		parent[o] = root(int32(o))
	}
	return parent, nil
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
