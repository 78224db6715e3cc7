package fusion

import (
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/localmap"
)

// EstimatePoses places every map frame relative to the first one from the
// association alone, for maps that come without poses: the map pairs are
// taken by decreasing number of pairings (a maximum spanning forest), and
// each new map's pose is its neighbour's composed with the pair's rigid
// motion. A map the association does not reach starts a new group at the
// origin; groups counts them (1 when every map is placed together).
// The poses come from the pairings themselves, so they cannot score them:
// use them to place fused landmarks, not for DN and PP.
func EstimatePoses(s *localmap.Set, a *Association) (poses []localmap.Pose, groups int) {
	type edge struct {
		i, j int
		m    Motion
	}
	var edges []edge
	for k, m := range a.Motions {
		edges = append(edges, edge{k[0], k[1], m})
	}
	sort.Slice(edges, func(x, y int) bool {
		if edges[x].m.Matches != edges[y].m.Matches {
			return edges[x].m.Matches > edges[y].m.Matches
		}
		if edges[x].i != edges[y].i {
			return edges[x].i < edges[y].i
		}
		return edges[x].j < edges[y].j
	})
	links := make([]link, len(edges))
	for k, e := range edges {
		links[k] = link{e.i, e.j, localmap.Pose{X: e.m.X, Y: e.m.Y, Theta: e.m.Theta}} // J's frame in I's
	}
	poses, _, groups = placeForest(len(s.Maps), links)
	return poses, groups
}

// link is a rigid motion between two nodes' frames (maps, robots): b's
// frame in a's.
type link struct {
	a, b int
	t    localmap.Pose
}

// placeForest places n nodes from links taken in order, the best first (a
// maximum spanning forest): from each node not yet placed, in node order,
// a group grows by the first link between a placed and an unplaced node,
// again and again. frame is each node's frame in its group's first node's,
// group its group (numbered in that order), groups their count.
func placeForest(n int, links []link) (frame []localmap.Pose, group []int, groups int) {
	frame, group = make([]localmap.Pose, n), make([]int, n)
	placed := make([]bool, n)
	for start := 0; start < n; start++ {
		if placed[start] {
			continue
		}
		placed[start], group[start] = true, groups
		for grew := true; grew; {
			grew = false
			for _, l := range links {
				switch {
				case placed[l.a] && !placed[l.b]:
					frame[l.b], group[l.b] = compose(frame[l.a], l.t), group[l.a]
				case placed[l.b] && !placed[l.a]:
					frame[l.a], group[l.a] = compose(frame[l.b], inverse(l.t)), group[l.b]
				default:
					continue
				}
				placed[l.a], placed[l.b], grew = true, true, true
				break
			}
		}
		groups++
	}
	return frame, group, groups
}

// compose is q's frame placed within p's: the pose p ∘ q.
func compose(p, q localmap.Pose) localmap.Pose {
	x, y := p.Apply(q.X, q.Y)
	return localmap.Pose{X: x, Y: y, Theta: math.Remainder(p.Theta+q.Theta, 2*math.Pi)}
}

// inverse is the motion that undoes p.
func inverse(p localmap.Pose) localmap.Pose {
	x, y := p.Inverse(0, 0)
	return localmap.Pose{X: x, Y: y, Theta: -p.Theta}
}
