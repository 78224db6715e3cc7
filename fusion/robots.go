package fusion

import (
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/localmap"
)

// AlignRobots places the odometry frames of several robots (s.Robots) in
// one frame from the association: every associated map pair across two
// robots says where the second robot's frame lies in the first's (its
// maps' poses and the pair's motion); the two robots' placement is the
// one the most pairings agree with (within robotAgreement; the rest are
// wrong pairs or drift), and robots are joined by decreasing agreement (a
// maximum spanning forest), each group in its first robot's frame. Two
// robots are joined only when at least two map pairs and half their
// pairings agree: on sparse maps the pairings across robots can be
// chance, and a chance placement would lay one robot's landmarks over
// another's. The poses come back in that frame, group is each map's
// robot group (its number), and groups counts them. With one robot the
// poses are s's.
func AlignRobots(s *localmap.Set, a *Association) (poses []localmap.Pose, group []int, groups int) {
	poses = append([]localmap.Pose(nil), s.Poses...)
	group = make([]int, len(s.Maps))
	if s.Robots == nil {
		return poses, group, 1
	}
	robot, robots := RobotNumbers(s)
	// Each cross-robot pair's placement of the higher robot's frame in the
	// lower one's.
	cands := map[[2]int][]placement{}
	for k, m := range a.Motions {
		i, j := k[0], k[1]
		ri, rj := robot[i], robot[j]
		if ri == rj {
			continue
		}
		t := compose(compose(s.Poses[i], localmap.Pose{X: m.X, Y: m.Y, Theta: m.Theta}), inverse(s.Poses[j])) // rj's frame in ri's
		if ri > rj {
			ri, rj, t = rj, ri, inverse(t)
		}
		cands[[2]int{ri, rj}] = append(cands[[2]int{ri, rj}], placement{t, m.Matches})
	}
	type edge struct {
		a, b           int
		t              localmap.Pose
		support, pairs int
	}
	var edges []edge
	for k, cs := range cands {
		sort.Slice(cs, func(x, y int) bool { return lessPose(cs[x].t, cs[y].t) }) // map order is random
		best, total := edge{a: k[0], b: k[1], support: -1}, 0
		for _, c := range cs {
			total += c.matches
			n, pairs := 0, 0
			for _, d := range cs {
				if math.Hypot(c.t.X-d.t.X, c.t.Y-d.t.Y) <= robotAgreement && math.Abs(math.Remainder(c.t.Theta-d.t.Theta, 2*math.Pi)) <= robotTurnAgreement {
					n, pairs = n+d.matches, pairs+1
				}
			}
			if n > best.support {
				best.t, best.support, best.pairs = c.t, n, pairs
			}
		}
		best.t = meanPlacement(cs, best.t)
		if best.pairs >= 2 && 2*best.support >= total {
			edges = append(edges, best)
		}
	}
	sort.Slice(edges, func(x, y int) bool {
		if edges[x].support != edges[y].support {
			return edges[x].support > edges[y].support
		}
		return edges[x].a < edges[y].a || edges[x].a == edges[y].a && edges[x].b < edges[y].b
	})
	links := make([]link, len(edges))
	for k, e := range edges {
		links[k] = link{e.a, e.b, e.t}
	}
	frame, groupOf, groups := placeForest(robots, links) // each robot's frame in its group's
	for k := range poses {
		poses[k] = compose(frame[robot[k]], poses[k])
		group[k] = groupOf[robot[k]]
	}
	return poses, group, groups
}

// placement is where one map pair places a robot's frame in another's,
// and the pair's pairings.
type placement struct {
	t       localmap.Pose
	matches int
}

// robotAgreement (m) and robotTurnAgreement (rad) are how far two map
// pairs' placements of one robot in another's frame may differ and
// agree: odometry drift between the pairs moves them apart.
const (
	robotAgreement     = 2.0
	robotTurnAgreement = 0.2
)

// meanPlacement is the mean, weighted by pairings, of the placements that
// agree with t.
func meanPlacement(cs []placement, t localmap.Pose) localmap.Pose {
	var x, y, sn, cs2, w float64
	for _, d := range cs {
		if math.Hypot(t.X-d.t.X, t.Y-d.t.Y) <= robotAgreement && math.Abs(math.Remainder(t.Theta-d.t.Theta, 2*math.Pi)) <= robotTurnAgreement {
			m := float64(d.matches)
			x, y, sn, cs2, w = x+m*d.t.X, y+m*d.t.Y, sn+m*math.Sin(d.t.Theta), cs2+m*math.Cos(d.t.Theta), w+m
		}
	}
	return localmap.Pose{X: x / w, Y: y / w, Theta: math.Atan2(sn, cs2)}
}

// lessPose orders poses, for a deterministic order.
func lessPose(p, q localmap.Pose) bool {
	if p.X != q.X {
		return p.X < q.X
	}
	if p.Y != q.Y {
		return p.Y < q.Y
	}
	return p.Theta < q.Theta
}

// WithinGroups is a without its pairings between maps of different
// groups (group: each map's, as AlignRobots gives; nil: a itself).
func WithinGroups(a *Association, group []int) *Association {
	if group == nil {
		return a
	}
	out := *a
	out.Pairings = nil
	for _, q := range a.Pairings {
		if group[q.I] == group[q.J] {
			out.Pairings = append(out.Pairings, q)
		}
	}
	return &out
}

// GroupMaps lists each group's maps (group: each map's group number, as
// AlignRobots gives), each in map order, the groups by their first map;
// nil for no map.
func GroupMaps(group []int) [][]int {
	var out [][]int
	index := map[int]int{}
	for m, g := range group {
		k, ok := index[g]
		if !ok {
			k = len(out)
			index[g] = k
			out = append(out, nil)
		}
		out[k] = append(out[k], m)
	}
	return out
}

// RobotNumbers is each of s's maps' robot, numbered by first map, and
// the number of robots (none without s.Robots).
func RobotNumbers(s *localmap.Set) (robot []int, robots int) {
	index := map[string]int{}
	robot = make([]int, len(s.Robots))
	for k, name := range s.Robots {
		if _, ok := index[name]; !ok {
			index[name] = len(index)
		}
		robot[k] = index[name]
	}
	return robot, len(index)
}
