package multiway

import (
	"context"
	"math/rand/v2"
	"sort"
)

// quickMatchNoise scales QuickMatch's random tie-break of densities: far
// below the smallest difference of two sums of weights that matters.
const quickMatchNoise = 1e-9

// quickMatch is QuickMatch as the CLEAR paper runs it on a binary P: Tron,
// Zhou, Esteves and Daniilidis, "Fast multi-image matching via density-based
// clustering", ICCV 2017.
//
// The density of an observation is its column sum of P plus a tiny seeded
// random tie-break. Its parent is, among the observations of higher
// density, the first with the largest P entry to it; that entry is the
// edge's strength (no candidate: a root). Edges are visited by strength,
// descending, in index order on ties, and an edge of positive strength
// merges the two clusters when they share no view. Each cluster is an
// item: consistent and distinct. m̂ is not used.
func quickMatch(ctx context.Context, s *sparse, opts *Options) (*Result, error) {
	rng := rand.New(rand.NewPCG(opts.seed(), 0x9c3a7c4))
	density := make([]float64, s.l)
	for x := 0; x < s.l; x++ {
		d := 1.0 // the diagonal
		for e := s.start[x]; e < s.start[x+1]; e++ {
			d += s.val[e]
		}
		density[x] = d + quickMatchNoise*rng.Float64()
	}
	type edge struct {
		x, parent int
		w         float64
	}
	edges := make([]edge, 0, s.l)
	for x := 0; x < s.l; x++ {
		// Candidates with P = 0 have strength 0 and never merge: only
		// neighbours can be the parent that matters.
		best, bw := -1, 0.0
		for e := s.start[x]; e < s.start[x+1]; e++ {
			c := s.col[e]
			if density[c] <= density[x] {
				continue
			}
			if w := s.val[e]; w > bw || (w == bw && c < best) {
				best, bw = c, w
			}
		}
		if best >= 0 {
			edges = append(edges, edge{x, best, bw})
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	sort.SliceStable(edges, func(a, b int) bool { return edges[a].w > edges[b].w })
	parent := make([]int, s.l)
	views := make([]map[int]bool, s.l) // views of each root's cluster
	for i := range parent {
		parent[i] = i
		views[i] = map[int]bool{s.view[i]: true}
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	for _, e := range edges {
		a, b := find(e.x), find(e.parent)
		if a == b {
			continue
		}
		if len(views[a]) > len(views[b]) {
			a, b = b, a
		}
		shared := false
		for v := range views[a] {
			if views[b][v] {
				shared = true
				break
			}
		}
		if shared {
			continue
		}
		for v := range views[a] {
			views[b][v] = true
		}
		views[a] = nil
		parent[a] = b
	}
	item := make([]int, s.l)
	for i := range item {
		item[i] = find(i)
	}
	return &Result{Item: item}, nil
}
