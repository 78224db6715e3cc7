package pipeline

import (
	"slices"

	"github.com/clearmatch/clearmatch/pairwise"
)

// ChainSupport returns, for each pair (a, c) of pairs, its chains: the
// distinct feature pairs (fa, fc) that the verified matches vs link
// through a third image b, fa–fb verified in a–b and fb–fc in b–c.
// Completion matches a pair it proposes only when it has
// PairOptions.CompletionMinChains; vs need only hold the pairs' hub
// pairs (a–b and b–c), in any order. It builds one hub's links at a time.
func ChainSupport(vs []pairwise.Verified, pairs [][2]int) []int {
	linked := map[[2]int]int{} // (i, j), i < j: its index in vs
	var verified [][2]int
	for k, v := range vs {
		if v.Model != pairwise.NoModel && len(v.Matches) > 0 {
			linked[[2]int{v.I, v.J}] = k
			verified = append(verified, [2]int{v.I, v.J})
		}
	}
	via := map[int][]int{} // hub: the pairs it links
	for k, hs := range ChainHubs(verified, pairs) {
		for _, b := range hs {
			via[b] = append(via[b], k)
		}
	}
	chains := make([][]uint64, len(pairs))
	hubs := make([]int, 0, len(via))
	for b := range via {
		hubs = append(hubs, b)
	}
	slices.Sort(hubs)
	for _, b := range hubs {
		links := map[int][]hubMatch{}
		link := func(x int) []hubMatch {
			if l, ok := links[x]; ok {
				return l
			}
			l := hubMatches(vs[linked[[2]int{min(b, x), max(b, x)}]], b)
			links[x] = l
			return l
		}
		for _, k := range via[b] {
			chains[k] = appendChains(chains[k], link(pairs[k][0]), link(pairs[k][1]))
		}
	}
	support := make([]int, len(pairs))
	for k, c := range chains {
		slices.Sort(c)
		support[k] = len(slices.Compact(c))
	}
	return support
}

// ChainHubs returns, for each pair (a, c) of pairs, its hubs: the images
// b with a–b and b–c both in verified (pairs i < j), increasing. Chains
// (ChainSupport) run through them only.
func ChainHubs(verified [][2]int, pairs [][2]int) [][]int {
	isVerified := make(map[[2]int]bool, len(verified))
	neighbours := map[int][]int{}
	for _, v := range verified {
		isVerified[v] = true
		neighbours[v[0]] = append(neighbours[v[0]], v[1])
		neighbours[v[1]] = append(neighbours[v[1]], v[0])
	}
	hubs := make([][]int, len(pairs))
	for k, p := range pairs {
		for _, b := range neighbours[p[0]] {
			if b != p[1] && isVerified[[2]int{min(b, p[1]), max(b, p[1])}] {
				hubs[k] = append(hubs[k], b)
			}
		}
		slices.Sort(hubs[k])
	}
	return hubs
}

// hubMatch is a verified match seen from one of its images, the hub: the
// hub's feature and the other image's.
type hubMatch struct{ Hub, Far int32 }

// hubMatches returns v's matches seen from its image hub, sorted by the
// hub's feature (one match per feature: verified matches are one-to-one).
func hubMatches(v pairwise.Verified, hub int) []hubMatch {
	l := make([]hubMatch, len(v.Matches))
	for k, m := range v.Matches {
		if hub == v.I {
			l[k] = hubMatch{Hub: m.A, Far: m.B}
		} else {
			l[k] = hubMatch{Hub: m.B, Far: m.A}
		}
	}
	slices.SortFunc(l, func(x, y hubMatch) int { return int(x.Hub) - int(y.Hub) })
	return l
}

// appendChains appends to dst the chains through one hub from a's links
// to c's, each sorted by the hub's feature: fa<<32 | fc for every hub
// feature matched in both.
func appendChains(dst []uint64, a, c []hubMatch) []uint64 {
	for i, j := 0, 0; i < len(a) && j < len(c); {
		switch {
		case a[i].Hub < c[j].Hub:
			i++
		case a[i].Hub > c[j].Hub:
			j++
		default:
			dst = append(dst, uint64(uint32(a[i].Far))<<32|uint64(uint32(c[j].Far)))
			i++
			j++
		}
	}
	return dst
}
