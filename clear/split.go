package clear

import (
	"sort"
)

// DefaultMaxComponent is the component size above which the verified
// pipeline splits a component before decomposing it (Options.MaxComponent).
// A component's decomposition costs about n·k² for n observations and k
// wanted eigenvectors; at 5000 observations that is seconds, not minutes.
// Real tracks are no longer than the number of images, so a component of
// thousands of observations is wrong associations chaining tracks
// together; CMU Hotel's single component of 3030 stays whole.
const DefaultMaxComponent = 5000

// splitLargeComponents returns the associations to drop so that no
// component of g is larger than limit, and how many components were split.
//
// The method is a size-bounded maximum spanning forest over cycle support
// (Kruskal's algorithm with a size cap): every association (edge) of a
// component over the limit is scored by its triangle support, the number of
// observations associated with both its ends. A correct association inside
// a track is confirmed by the track's other observations (every triangle of
// a correct track closes: the cycle-consistency CLEAR restores), while a
// wrong link between two tracks typically closes none. Edges are taken by
// decreasing support, then weight, then index; an edge joins two groups
// only while the union stays within the limit, and an edge inside a group
// is kept. Edges between groups are dropped. The result depends only on
// the graph, not on the order of the input.
func splitLargeComponents(g *graph, members [][]int, limit int) (drop map[[2]int32]bool, split int) {
	type edge struct {
		i, j int32
		sup  int32
		w    float64
	}
	parent := map[int32]int32{}
	size := map[int32]int{}
	var find func(x int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	drop = map[[2]int32]bool{}
	for _, vs := range members {
		if len(vs) <= limit {
			continue
		}
		split++
		var edges []edge
		for _, v := range vs {
			rv := g.col[g.rowPtr[v]:g.rowPtr[v+1]]
			for k, u := range rv {
				if int(u) <= v {
					continue
				}
				ru := g.col[g.rowPtr[u]:g.rowPtr[u+1]]
				edges = append(edges, edge{int32(v), u, commonCount(rv, ru), g.weight(g.rowPtr[v] + k)})
			}
			parent[int32(v)] = int32(v)
			size[int32(v)] = 1
		}
		sort.Slice(edges, func(a, b int) bool {
			x, y := edges[a], edges[b]
			switch {
			case x.sup != y.sup:
				return x.sup > y.sup
			case x.w != y.w:
				return x.w > y.w
			case x.i != y.i:
				return x.i < y.i
			}
			return x.j < y.j
		})
		for _, e := range edges {
			a, b := find(e.i), find(e.j)
			switch {
			case a == b:
			case size[a]+size[b] <= limit:
				if a > b {
					a, b = b, a
				}
				parent[b] = a
				size[a] += size[b]
			default:
				drop[[2]int32{e.i, e.j}] = true
			}
		}
	}
	return drop, split
}

// commonCount counts the entries two sorted rows share.
func commonCount(a, b []int32) int32 {
	n := int32(0)
	for len(a) > 0 && len(b) > 0 {
		switch {
		case a[0] < b[0]:
			a = a[1:]
		case a[0] > b[0]:
			b = b[1:]
		default:
			n++
			a, b = a[1:], b[1:]
		}
	}
	return n
}

// withoutEdges returns p without the associations between the pairs in
// drop (in either order).
func withoutEdges(p *Problem, drop map[[2]int32]bool) *Problem {
	q := &Problem{ViewSizes: p.ViewSizes, Directed: p.Directed, Associations: make([]Association, 0, len(p.Associations))}
	for _, a := range p.Associations {
		i, j := int32(min(a.A, a.B)), int32(max(a.A, a.B))
		if !drop[[2]int32{i, j}] {
			q.Associations = append(q.Associations, a)
		}
	}
	return q
}
