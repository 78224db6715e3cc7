package pipeline

import "github.com/clearmatch/clearmatch/clear"

// dropForeign takes out of their items the observations CLEAR assigned to
// an item of another component of the association graph, and returns the
// items (−1 for those) and how many it took out.
//
// CLEAR gives every observation an item. When a component has more
// observations in a view than it has items, the rest go to the view's
// lowest free items, which belong to other components: nothing in the
// input associates them with their new track-mates, and on repeated
// texture the overflow of many components gathers into false tracks
// across many views. An item's home is the component holding most of its observations (on a
// tie, its first observation's); observations of other components leave.
func dropForeign(p *clear.Problem, item []int) ([]int, int, error) {
	parts, _, err := p.Parts()
	if err != nil {
		return nil, 0, err
	}
	comp := make([]int, len(item)) // part index, or −1−o for a singleton
	for o := range comp {
		comp[o] = -1 - o
	}
	for k, pt := range parts {
		for _, o := range pt.Observations {
			comp[o] = k
		}
	}
	home := itemHomes(item, comp)
	if len(home) == 0 {
		return item, 0, nil
	}
	out := make([]int, len(item))
	dropped := 0
	for o, it := range item {
		out[o] = it
		if h, ok := home[it]; ok && it >= 0 && comp[o] != h {
			out[o] = -1
			dropped++
		}
	}
	return out, dropped, nil
}

// itemHomes returns the home component (see dropForeign) of each item
// whose observations lie in more than one component. Only those are
// counted, so memory follows the items, not items × components.
func itemHomes(item, comp []int) map[int]int {
	n := 0
	for _, it := range item {
		n = max(n, it+1)
	}
	first := make([]int, n) // the component of the item's first observation
	seen := make([]bool, n)
	counts := map[int]map[int]int{} // mixed item → component → observations
	for o, it := range item {
		switch {
		case it < 0:
		case !seen[it]:
			seen[it], first[it] = true, comp[o]
		case comp[o] != first[it] && counts[it] == nil:
			counts[it] = map[int]int{}
		}
	}
	for o, it := range item {
		if it >= 0 && counts[it] != nil {
			counts[it][comp[o]]++
		}
	}
	home := make(map[int]int, len(counts))
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
