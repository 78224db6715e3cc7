package fusion

import (
	"maps"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// Tracking: each robot's maps associated in order against the landmarks
// of its maps before, as a SLAM front end does. A map pair judged alone
// is predicted by the odometry over the whole path between the two maps,
// and that error grows until the gate says nothing; a map placed by the
// landmarks it shares with the maps just before it is predicted from
// there, over one step of odometry. Measured with the true association,
// that prediction's error does not grow with the step (docs/decisions.md,
// "Tracking each robot's maps"), so the gate is a constant. A wrong
// placement misplaces every map after it, so each robot is tracked
// forwards and backwards in time, and only the pairings both passes make
// are kept: the two passes go wrong in different places.

// trackGate is the tracking gate's standard deviation in tolerances: the
// gate (tolerance + 3 σ) is two tolerances, half the landmark spacing
// that AutoTolerance makes four, so a landmark's gate holds one mark.
const trackGate = 1.0 / 3

// trackPlaced is how many agreeing pairings place a tracked map: two,
// the fewest that fix a planar motion. Within tracking's gate a landmark
// has one mark at most, and a wrong placement is caught where the
// forward and backward passes disagree (docs/decisions.md, "Tracking
// each robot's maps").
const trackPlaced = 2

// addTracked lets tracking's pairings (trackPairs) win each map pair of
// pairs where they pair more than found's (no longer gated then), and
// counts those pairs.
func addTracked(s *localmap.Set, idx []*mapIndex, pairs [][2]int, found []alignment, tol float64, gated map[[2]int]bool) int {
	tracked := trackPairs(s, idx, tol, trackPlaced)
	n := 0
	for k, pr := range pairs {
		if f, ok := tracked[pr]; ok && len(f.matches) > len(found[k].matches) {
			found[k] = f
			delete(gated, pr)
			n++
		}
	}
	return n
}

// mark is a tracked landmark: its position in the tracked frame (the
// mean of its observations there) and its observations.
type mark struct {
	x, y, z float64
	obs     []observation
}

// observation is landmark lm of map m.
type observation struct{ m, lm int }

// trackPairs is the pairings tracking makes (trackChain), forwards and
// backwards in time, on each robot's maps (s.Previous), that both passes
// make, by map pair (i < j); each pair's motion is the forward pass's
// placements'. A map is placed by minPlaced agreeing pairings or more.
func trackPairs(s *localmap.Set, idx []*mapIndex, tol float64, minPlaced int) map[[2]int]alignment {
	spacing := medianSpacing(idx)
	fwd, back := map[[2]int]alignment{}, map[[2]int]alignment{}
	for _, chain := range robotChains(s) {
		maps.Copy(fwd, trackChain(s, chain, idx, tol, spacing, minPlaced))
		slices.Reverse(chain)
		maps.Copy(back, trackChain(s, chain, idx, tol, spacing, minPlaced))
	}
	seen := map[[4]int]bool{}
	for pr, al := range back { // pr is (later map, earlier map)
		for _, m := range al.matches {
			seen[[4]int{pr[1], m[1], pr[0], m[0]}] = true
		}
	}
	both := map[[2]int]alignment{}
	for pr, al := range fwd {
		var kept [][2]int
		for _, m := range al.matches {
			if seen[[4]int{pr[0], m[0], pr[1], m[1]}] {
				kept = append(kept, m)
			}
		}
		if len(kept) > 0 {
			al.matches = kept
			both[pr] = al
		}
	}
	return both
}

// robotChains is each robot's maps in order (s.Previous), robots in
// order of their first map.
func robotChains(s *localmap.Set) [][]int {
	var chains [][]int
	chainOf := make([]int, len(s.Maps))
	for k, p := range s.Previous() {
		if p < 0 {
			chainOf[k] = len(chains)
			chains = append(chains, nil)
		} else {
			chainOf[k] = chainOf[p]
		}
		chains[chainOf[k]] = append(chains[chainOf[k]], k)
	}
	return chains
}

// trackChain tracks one robot's maps (chain, in the order given): its
// pairings by map pair, keyed (earlier map in chain, later). Each map is
// predicted by the correction of the last map placed and its odometry
// pose, gated against the marks within reach (alignPosed, a constant
// gate), and placed by the fit of the pairings when minPlaced or more
// agree. A matched landmark pairs with every observation of its mark and
// joins it; the others become marks where the map's placement puts them.
func trackChain(s *localmap.Set, chain []int, idx []*mapIndex, tol, spacing float64, minPlaced int) map[[2]int]alignment {
	out := map[[2]int]alignment{}
	var marks []mark
	var corr alignment // the tracked frame from the odometry frame
	placed := make(map[int]alignment, len(chain))
	gate := posedGate{base: trackGate * tol}
	for _, k := range chain {
		pose := predict(localmap.Pose{}, s.Poses[k])
		gate.pred = corr.then(pose)
		matched := map[int]int{} // map k's landmark → its mark
		near, a := markIndex(marks, idx[k], &gate, tol, spacing)
		if f := alignPosed(a, idx[k], &gate, tol); len(f.matches) >= minPlaced {
			gate.pred = alignment{theta: f.theta, t: f.t}
			corr = gate.pred.then(pose.inverse())
			for _, m := range f.matches {
				matched[m[1]] = near[m[0]]
			}
		}
		placed[k] = gate.pred
		for lm, p := range idx[k].pts {
			q := gate.pred.apply(p)
			c, ok := matched[lm]
			if !ok {
				marks = append(marks, mark{x: q.X, y: q.Y, z: idx[k].z[lm], obs: []observation{{k, lm}}})
				continue
			}
			mk := &marks[c]
			for _, o := range mk.obs {
				al := out[[2]int{o.m, k}]
				al.matches = append(al.matches, [2]int{o.lm, lm})
				out[[2]int{o.m, k}] = al
			}
			n := float64(len(mk.obs))
			mk.x, mk.y, mk.z = (mk.x*n+q.X)/(n+1), (mk.y*n+q.Y)/(n+1), (mk.z*n+idx[k].z[lm])/(n+1)
			mk.obs = append(mk.obs, observation{k, lm})
		}
	}
	for pr, al := range out {
		rel := placed[pr[0]].inverse().then(placed[pr[1]])
		al.theta, al.t = rel.theta, rel.t
		out[pr] = al
	}
	return out
}

// markIndex is the marks within the gate of a landmark of map b (as g
// places it), as a map to gate b against, and each point's mark. Of two
// marks closer than half the spacing only the one seen more often (the
// earlier, on a tie) is in it: the other is most likely the same
// landmark, added while the tracking was lost, and with both in, no
// largest set of pairings is the only one.
func markIndex(marks []mark, b *mapIndex, g *posedGate, tol, spacing float64) ([]int, *mapIndex) {
	at := make([]geom.Point, len(b.pts)) // b's landmarks where g places them
	radius := make([]float64, len(b.pts))
	for j, p := range b.pts {
		at[j], radius[j] = g.pred.apply(p), g.radius(p.X, p.Y, tol)
	}
	var reach []int
	for c, m := range marks {
		for j, q := range at {
			if math.Hypot(q.X-m.x, q.Y-m.y) <= radius[j] {
				reach = append(reach, c)
				break
			}
		}
	}
	a := &mapIndex{spacing: spacing}
	var near []int
	for _, c := range reach {
		if !shadowed(marks, reach, c, spacing/2) {
			near = append(near, c)
			a.pts = append(a.pts, geom.Point{X: marks[c].x, Y: marks[c].y})
			a.z = append(a.z, marks[c].z)
		}
	}
	a.grid = geom.NewGrid(a.pts, max(spacing, 1e-6))
	return near, a
}

// shadowed reports whether a mark of among other than c lies within r of
// c and was seen more often (as often and earlier, on a tie).
func shadowed(marks []mark, among []int, c int, r float64) bool {
	for _, e := range among {
		if e != c && math.Hypot(marks[c].x-marks[e].x, marks[c].y-marks[e].y) <= r &&
			(len(marks[e].obs) > len(marks[c].obs) || len(marks[e].obs) == len(marks[c].obs) && e < c) {
			return true
		}
	}
	return false
}

// medianSpacing is the median of the maps' landmark spacings (0 with
// none).
func medianSpacing(idx []*mapIndex) float64 {
	var sp []float64
	for _, x := range idx {
		if x.spacing > 0 {
			sp = append(sp, x.spacing)
		}
	}
	if len(sp) == 0 {
		return 0
	}
	return median(sp)
}
