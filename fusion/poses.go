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
	n := len(s.Maps)
	poses = make([]localmap.Pose, n)
	placed := make([]bool, n)
	for start := 0; start < n; start++ {
		if placed[start] {
			continue
		}
		groups++
		placed[start] = true
		for grew := true; grew; {
			grew = false
			for _, e := range edges {
				rel := localmap.Pose{X: e.m.X, Y: e.m.Y, Theta: e.m.Theta} // J's frame in I's
				switch {
				case placed[e.i] && !placed[e.j]:
					poses[e.j] = compose(poses[e.i], rel)
				case placed[e.j] && !placed[e.i]:
					poses[e.i] = compose(poses[e.j], inverse(rel))
				default:
					continue
				}
				placed[e.i], placed[e.j], grew = true, true, true
				break
			}
		}
	}
	return poses, groups
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
