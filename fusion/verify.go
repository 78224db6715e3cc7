package fusion

import (
	"math"

	"github.com/clearmatch/clearmatch/localmap"
)

// Long pose-gated pairs. The pose gate predicts a map pair's motion from
// the odometry, over the whole path between the two maps; between maps
// far apart in time the odometry is off by about a landmark spacing, and
// on a sparse, regular layout three landmarks then fit one spacing off
// as well as in place. Where the pose gate alone made a map pair of maps
// LongGatedMaps or more apart (tracking's marks, kept across revisits,
// did not), its pairings are checked against the map optimized without
// them (docs/decisions.md, "Long pose-gated pairs").

// LongGatedMaps is how many maps apart, in their robot's order, the two
// maps of a long gated pair are at least: 7.5 minutes of 30 s maps.
const LongGatedMaps = 15

// WithoutLong is a without the pairings of its long gated map pairs.
func WithoutLong(s *localmap.Set, a *Association) *Association {
	long := longOf(s, a)
	return keepPairings(a, func(q Pairing) bool { return !long(q) })
}

// LongPairings counts a's pairings of long gated map pairs.
func LongPairings(s *localmap.Set, a *Association) int {
	n, long := 0, longOf(s, a)
	for _, q := range a.Pairings {
		if long(q) {
			n++
		}
	}
	return n
}

// VerifyLong is a with a pairing of a long gated map pair kept only where
// the map poses put its two landmarks within radius of each other.
func VerifyLong(s *localmap.Set, a *Association, poses []localmap.Pose, radius float64) *Association {
	long := longOf(s, a)
	return keepPairings(a, func(q Pairing) bool {
		if !long(q) {
			return true
		}
		la, lb := s.Maps[q.I].Landmarks[q.A], s.Maps[q.J].Landmarks[q.B]
		xa, ya := poses[q.I].Apply(la.X, la.Y)
		xb, yb := poses[q.J].Apply(lb.X, lb.Y)
		return math.Hypot(xa-xb, ya-yb) <= radius
	})
}

// longOf reports whether a pairing's map pair is gated in a and its
// maps, of one robot, LongGatedMaps or more apart in its order.
func longOf(s *localmap.Set, a *Association) func(Pairing) bool {
	order := robotOrder(s)
	return func(q Pairing) bool {
		d := order[q.J] - order[q.I]
		return a.Gated[[2]int{q.I, q.J}] && s.SameRobot(q.I, q.J) && (d >= LongGatedMaps || -d >= LongGatedMaps)
	}
}

// robotOrder is each map's place in its robot's maps (0 for the first).
func robotOrder(s *localmap.Set) []int {
	out := make([]int, len(s.Maps))
	for k, p := range s.Previous() {
		if p >= 0 {
			out[k] = out[p] + 1
		}
	}
	return out
}

// keepPairings is a with the pairings keep holds, in order.
func keepPairings(a *Association, keep func(Pairing) bool) *Association {
	out := *a
	out.Pairings = nil
	for _, q := range a.Pairings {
		if keep(q) {
			out.Pairings = append(out.Pairings, q)
		}
	}
	return &out
}
