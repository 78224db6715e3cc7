package fusion

import (
	"math"
	"slices"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// Realigning a robot whose map came out twice. Where tracking loses a
// robot midway and picks it up in a frame turned against the first, and
// its maps from then on agree with each other, the robot's maps before
// and after that point each make a map of the same landmarks, one moved
// against the other. Landmarks of one that fall by chance near the
// other's join them, so the settled map holds some landmarks once and
// the rest twice, and no single map or end run explains better elsewhere
// (Relocate, RelocateEnds). Split in time there, the two halves' maps
// align, as two robots' maps do in JoinFrames, by a motion that pairs far
// more of their landmarks than where they lie.

// SplitMaps is the fewest maps either half of a split robot holds: a
// half needs landmarks seen from two of its maps to align by.
const SplitMaps = 6

// SplitShare is the least share of the smaller half's landmarks the
// motion must pair: a robot's map that came out twice pairs most of
// them, while the halves of a run that explored new ground pair a few of
// many by chance (docs/decisions.md).
const SplitShare = 0.5

// SplitGain is how many more of the halves' landmarks the motion must
// pair than where they lie: on robots tracked right every split pairs as
// many where it lies as any motion does (docs/decisions.md).
const SplitGain = 3

// splitHalf is one half of a robot's maps as a map to align: its
// clusters seen from two of its maps or more, each where the half's
// observations of it lie on average, the most seen first, none within
// two tolerances of a kept one.
type splitHalf struct {
	pts []geom.Point
	idx *mapIndex
}

// split is a robot's best split: the maps after it begin at, the motion
// that lays the later half on the earlier one, and how many more of the
// later half's observations it puts within tol of the earlier half's
// landmarks than lie there.
type split struct {
	at     int
	motion localmap.Pose
	gain   int
}

// RealignSplit splits each robot's maps (s.Previous's chains, each of one
// component and frame group of opt) in two, SplitMaps or more each side,
// where the two halves align (alignByEdges, within tol) by a motion that
// pairs SplitGain more of the later half's landmarks with the earlier
// half's than lie within tol of them where they are, and SplitShare of
// the smaller half's landmarks or more; that moves a landmark over two
// tolerances, is explained by chance fewer than joinFalseAlarms times and
// comes within joinUnique of no other motion. Of such splits it takes
// the one whose motion puts the most more of the later maps'
// observations by the earlier half's landmarks (the earlier on a tie): a
// map on the wrong side loses its own. The half of fewer maps (the later
// on a tie) moves, and with it the clusters only its maps observe; the
// observations are then associated again within radius (Reassociate).
// Maps is how many maps moved; with none, Result is r.
func RealignSplit(s *localmap.Set, r *Result, opt *Optimized, frames []int, tol, radius float64, minCluster int) *Relocated {
	key := frameKeys(opt, frames)
	at := Positions(&localmap.Set{Maps: s.Maps, Poses: opt.Graph.Poses})
	obsMap, first := ObservationMaps(s), observationStarts(s)
	out := &Relocated{Result: r, Poses: slices.Clone(opt.Graph.Poses)}
	movedMap := make([]bool, len(s.Maps))
	for _, chain := range robotChains(s) {
		if len(chain) < 2*SplitMaps || !sameKey(chain, key) {
			continue
		}
		sp, ok := bestSplit(chain, first, r.Cluster, at, tol)
		if !ok {
			continue
		}
		moving, motion := chain[sp.at:], sp.motion
		if sp.at < len(chain)-sp.at {
			moving, motion = chain[:sp.at], inverse(sp.motion)
		}
		for _, m := range moving {
			out.Poses[m] = compose(motion, opt.Graph.Poses[m])
			movedMap[m] = true
		}
		out.Maps += len(moving)
	}
	if out.Maps == 0 {
		return out
	}
	out.Result = Reassociate(s, r, movedOptimized(opt, out.Poses, r, obsMap, movedMap), frames, radius, minCluster)
	return out
}

// bestSplit is the split of chain RealignSplit takes, and whether there
// is one.
func bestSplit(chain, first, cluster []int, at [][2]float64, tol float64) (split, bool) {
	best, found := split{}, false
	for b := SplitMaps; b <= len(chain)-SplitMaps; b++ {
		early, late := newSplitHalf(chain[:b], first, cluster, at, tol), newSplitHalf(chain[b:], first, cluster, at, tol)
		al, ok := alignHalves(early, late, tol)
		if !ok {
			continue
		}
		gain := 0
		for _, m := range chain[b:] {
			for g := first[m]; g < first[m+1]; g++ {
				p := geom.Point{X: at[g][0], Y: at[g][1]}
				if early.idx.within(al.apply(p), 0, tol) {
					gain++
				}
				if early.idx.within(p, 0, tol) {
					gain--
				}
			}
		}
		if !found || gain > best.gain {
			best, found = split{at: b, motion: localmap.Pose{X: al.t[0], Y: al.t[1], Theta: al.theta}, gain: gain}, true
		}
	}
	return best, found
}

// alignHalves is the motion that lays late on early (alignByEdges) and
// whether RealignSplit may take it: it pairs SplitGain more landmarks
// than lie together where they are and SplitShare of the smaller half's,
// moves a landmark over two tolerances, and passes the join's chance
// and uniqueness tests.
func alignHalves(early, late splitHalf, tol float64) (alignment, bool) {
	if len(early.pts) < 3 || len(late.pts) < 3 {
		return alignment{}, false
	}
	al := alignByEdges(early.idx, late.idx, tol)
	var here alignment // the halves where they lie
	n := float64(len(al.matches))
	ok := len(al.matches)-countFits(early.idx, late.idx, &here, tol, 0) >= SplitGain &&
		n >= SplitShare*float64(min(len(early.pts), len(late.pts))) &&
		movesApart(late.pts, &al, &here, 2*tol) &&
		n >= joinUnique*float64(al.runnerUp) &&
		chanceAlignments(al, early.pts, len(late.pts), tol) < math.Log(joinFalseAlarms)
	return al, ok
}

// newSplitHalf is the half of a robot made of maps (their observations
// first[m] to first[m+1]−1, each in a cluster or none, at its position
// at).
func newSplitHalf(maps, first, cluster []int, at [][2]float64, tol float64) splitHalf {
	type sum struct {
		x, y float64
		n    int
		maps int
	}
	sums := map[int]*sum{}
	var order []int
	for _, m := range maps {
		seen := map[int]bool{}
		for g := first[m]; g < first[m+1]; g++ {
			c := cluster[g]
			if c < 0 {
				continue
			}
			e := sums[c]
			if e == nil {
				e = &sum{}
				sums[c] = e
				order = append(order, c)
			}
			e.x, e.y, e.n = e.x+at[g][0], e.y+at[g][1], e.n+1
			if !seen[c] {
				seen[c] = true
				e.maps++
			}
		}
	}
	sort.SliceStable(order, func(x, y int) bool { return sums[order[x]].maps > sums[order[y]].maps })
	var h splitHalf
	kept := spatialHash{}
	for _, c := range order {
		e := sums[c]
		q := geom.Point{X: e.x / float64(e.n), Y: e.y / float64(e.n)}
		if e.maps < 2 || kept.near(q, 2*tol) >= 0 {
			continue
		}
		kept.add(q, len(h.pts), 2*tol)
		h.pts = append(h.pts, q)
	}
	h.idx = newPointIndex(h.pts, make([]float64, len(h.pts)), tol, 0)
	return h
}

// movedOptimized is opt with the maps at poses and each cluster of r that
// only moved maps observe moved with them (by its first observation's
// map's motion).
func movedOptimized(opt *Optimized, poses []localmap.Pose, r *Result, obsMap []int, moved []bool) *Optimized {
	g := *opt.Graph
	g.Poses = poses
	g.Landmarks = slices.Clone(opt.Graph.Landmarks)
	by := make([]int, r.Clusters) // a moved map observing the cluster, −1 none, −2 an unmoved one too
	for c := range by {
		by[c] = -1
	}
	for o, c := range r.Cluster {
		switch m := obsMap[o]; {
		case c < 0 || by[c] == -2:
		case !moved[m]:
			by[c] = -2
		case by[c] == -1:
			by[c] = m
		}
	}
	for c, m := range by {
		if m >= 0 {
			motion := compose(poses[m], inverse(opt.Graph.Poses[m]))
			g.Landmarks[c][0], g.Landmarks[c][1] = motion.Apply(g.Landmarks[c][0], g.Landmarks[c][1])
		}
	}
	out := *opt
	out.Graph = &g
	return &out
}
