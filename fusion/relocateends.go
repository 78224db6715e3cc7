package fusion

import (
	"math"
	"slices"
	"sort"

	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// Relocating a robot's first or last maps together. Tracking is weakest
// at a robot's ends: forwards it starts from one map's landmarks, and
// backwards it reaches the first maps last, after the most drift. Where
// both went wrong there, a run of end maps settles swung about the map
// after it, each map too consistent with its neighbours for Relocate to move it alone.
// RelocateEnds moves such a run rigidly where the landmarks of the
// robot's other maps explain it better (docs/decisions.md, "Relocating a
// robot's end maps").

// EndMaps bounds the maps of a run at either end of a robot's maps.
const EndMaps = 12

// EndTurn bounds a run's turn, radians.
const EndTurn = 1.2

// EndGain is how many more of a run's landmarks the moved run must put by
// clusters of other maps than it does where it is, and EndShare the share
// of them it must be when that is more: a run of many landmarks explains
// a few more by chance (docs/decisions.md).
const (
	EndGain  = 3
	EndShare = 0.1
)

// maxEndCandidates bounds a run's candidate pairings: more, and the run
// is not tried.
const maxEndCandidates = 160

// endRun is a run of end maps and the motion that moves them.
type endRun struct {
	maps    []int
	motion  localmap.Pose
	gain    int
	cluster map[int]int // observation → its cluster after the move (−1: none)
}

// RelocateEnds moves, on each robot (s.Previous's chains), the run of its
// first or last maps (2 to EndMaps of them, at most half its maps, all of
// one component and frame group) that gains the most, by one rigid
// motion of the optimized frame: the one that puts EndGain or more of the
// run's landmarks more within radius of a cluster observed by maps
// outside the run than where they are, turns EndTurn at most, and no
// motion that moves a landmark over two tolerances from it puts as many.
// A motion is fixed by two of the run's landmarks paired with such
// clusters within RelocateReach tolerances, as far apart (within two
// tolerances). Ties go to the shorter run, the first maps before the
// last. The moved observations join the nearest such cluster within
// radius (each map's landmarks their own), or none. Clusters smaller than
// minCluster are dropped.
func RelocateEnds(s *localmap.Set, r *Result, opt *Optimized, frames []int, tol, radius float64, minCluster int) *Relocated {
	key := frameKeys(opt, frames)
	first := observationStarts(s)
	out := &Relocated{Poses: append([]localmap.Pose(nil), opt.Graph.Poses...)}
	cluster := append([]int(nil), r.Cluster...)
	search := &endSearch{s: s, r: r, opt: opt, first: first, obsMap: ObservationMaps(s), key: key, tol: tol, radius: radius}
	for _, chain := range robotChains(s) {
		var best *endRun
		for _, run := range endRuns(chain) {
			if !sameKey(run, key) {
				continue
			}
			e := search.try(run)
			if e != nil && (best == nil || e.gain > best.gain) {
				best = e
			}
		}
		if best == nil {
			continue
		}
		for _, k := range best.maps {
			out.Poses[k] = compose(best.motion, opt.Graph.Poses[k])
			for g := first[k]; g < first[k+1]; g++ {
				cluster[g] = best.cluster[g]
			}
		}
		out.Maps += len(best.maps)
	}
	out.Result = &Result{Method: r.Method, Seconds: r.Seconds}
	out.Result.Cluster, out.Result.Clusters = renumber(eval.MinTrack(cluster, minCluster))
	return out
}

// endRuns is chain's runs of first maps, shortest first, then its runs
// of last maps.
func endRuns(chain []int) [][]int {
	var runs [][]int
	n := min(EndMaps, len(chain)/2)
	for p := 2; p <= n; p++ {
		runs = append(runs, chain[:p])
	}
	for p := 2; p <= n; p++ {
		runs = append(runs, chain[len(chain)-p:])
	}
	return runs
}

// sameKey reports whether every map of run has one key.
func sameKey(run, key []int) bool {
	for _, k := range run {
		if key[k] != key[run[0]] {
			return false
		}
	}
	return true
}

// endSearch is what RelocateEnds judges a run by: r's clusters, opt's
// poses and landmarks, each map's first observation (first), each
// observation's map (obsMap), each map's component and frame group (key)
// and the radii.
type endSearch struct {
	s                  *localmap.Set
	r                  *Result
	opt                *Optimized
	first, obsMap, key []int
	tol, radius        float64
}

// try is run's best move, or nil when none gains enough. The run's
// landmarks are placed against the clusters its own component and frame
// group's maps outside it observe: another frame's are no evidence.
func (e *endSearch) try(run []int) *endRun {
	t := e.targets(run)
	if len(t.marks) < 2 {
		return nil
	}
	pts, obs := e.runPoints(run)
	current := t.explain(pts, localmap.Pose{})
	gain := max(EndGain, int(math.Ceil(EndShare*float64(len(pts)))))
	if len(pts) < current+gain {
		return nil
	}
	best, n, ok := t.bestMotion(pts, e.tol)
	if !ok || n < current+gain {
		return nil
	}
	moved := &endRun{maps: run, motion: best, gain: n - current, cluster: map[int]int{}}
	for _, g := range obs {
		moved.cluster[g] = -1
	}
	start := 0
	for _, k := range run {
		m := len(e.s.Maps[k].Landmarks)
		for j, c := range t.assign(pts[start:start+m], best) {
			if c >= 0 {
				moved.cluster[obs[start+j]] = c
			}
		}
		start += m
	}
	return moved
}

// endTargets are the clusters a run is placed against: their ids, where
// the optimized map puts them (marks, indexed by grid) and the radius
// within which a landmark is explained by one.
type endTargets struct {
	ids    []int
	marks  []geom.Point
	grid   *geom.Grid
	radius float64
}

// targets are the clusters that maps of run's component and frame group
// outside run observe, in ascending order.
func (e *endSearch) targets(run []int) endTargets {
	inRun := map[int]bool{}
	for _, k := range run {
		inRun[k] = true
	}
	outside := map[int]bool{}
	for g, c := range e.r.Cluster {
		if m := e.obsMap[g]; c >= 0 && c < len(e.opt.Graph.Landmarks) && !inRun[m] && e.key[m] == e.key[run[0]] {
			outside[c] = true
		}
	}
	t := endTargets{radius: e.radius}
	for c := range outside {
		t.ids = append(t.ids, c)
	}
	sort.Ints(t.ids)
	for _, c := range t.ids {
		t.marks = append(t.marks, geom.Point{X: e.opt.Graph.Landmarks[c][0], Y: e.opt.Graph.Landmarks[c][1]})
	}
	t.grid = geom.NewGrid(t.marks, max(e.radius, 1e-6))
	return t
}

// runPoints are run's observations where the optimized poses put them,
// and their observation numbers.
func (e *endSearch) runPoints(run []int) (pts []geom.Point, obs []int) {
	for _, k := range run {
		p := e.opt.Graph.Poses[k]
		for j, l := range e.s.Maps[k].Landmarks {
			x, y := p.Apply(l.X, l.Y)
			pts = append(pts, geom.Point{X: x, Y: y})
			obs = append(obs, e.first[k]+j)
		}
	}
	return pts, obs
}

// explain counts the pts that m lays within the radius of a target.
func (t endTargets) explain(pts []geom.Point, m localmap.Pose) int {
	n := 0
	for _, p := range pts {
		x, y := m.Apply(p.X, p.Y)
		found := false
		t.grid.Near(x, y, t.radius, func(c int32) {
			found = found || math.Hypot(t.marks[c].X-x, t.marks[c].Y-y) <= t.radius
		})
		if found {
			n++
		}
	}
	return n
}

// bestMotion is the motion of endMotions that explains the most pts and
// how many; not ok when another placed apart explains as many, as then
// neither is known.
func (t endTargets) bestMotion(pts []geom.Point, tol float64) (best localmap.Pose, n int, ok bool) {
	motions := endMotions(pts, t.marks, t.grid, tol)
	n = -1
	counts := make([]int, len(motions))
	for x, m := range motions {
		if counts[x] = t.explain(pts, m); counts[x] > n {
			n, best = counts[x], m
		}
	}
	for x, m := range motions {
		if counts[x] == n && placedApart(pts, m, best, 2*tol) {
			return best, n, false
		}
	}
	return best, n, true
}

// assign is the target cluster each of one map's pts joins once moved by
// m (−1 for none): the nearest within the radius, closest first.
func (t endTargets) assign(pts []geom.Point, m localmap.Pose) []int {
	var pairs []near
	for j, p := range pts {
		x, y := m.Apply(p.X, p.Y)
		t.grid.Near(x, y, t.radius, func(c int32) {
			if d := math.Hypot(t.marks[c].X-x, t.marks[c].Y-y); d <= t.radius {
				pairs = append(pairs, near{a: j, b: int(c), d: d})
			}
		})
	}
	mark, _ := closestFirst(pairs, len(pts))
	out := slices.Repeat([]int{-1}, len(pts))
	for j, c := range mark {
		if c >= 0 {
			out[j] = t.ids[c]
		}
	}
	return out
}

// endMotions is every motion (turning EndTurn at most) that two of pts
// paired with marks within RelocateReach tolerances fix, the pairs as far
// apart within two tolerances and a tolerance apart or more; none when
// the candidate pairings exceed maxEndCandidates.
func endMotions(pts, marks []geom.Point, grid *geom.Grid, tol float64) []localmap.Pose {
	reach := RelocateReach * tol
	var cs []candidate
	for j, p := range pts {
		var nb []int
		grid.Near(p.X, p.Y, reach, func(c int32) {
			if math.Hypot(marks[c].X-p.X, marks[c].Y-p.Y) <= reach {
				nb = append(nb, int(c))
			}
		})
		sort.Ints(nb)
		for _, c := range nb {
			cs = append(cs, candidate{j, c})
		}
	}
	if len(cs) > maxEndCandidates {
		return nil
	}
	var out []localmap.Pose
	for x, a := range cs {
		for _, b := range cs[x+1:] {
			if a.j == b.j || a.c == b.c {
				continue
			}
			dp := math.Hypot(pts[a.j].X-pts[b.j].X, pts[a.j].Y-pts[b.j].Y)
			dm := math.Hypot(marks[a.c].X-marks[b.c].X, marks[a.c].Y-marks[b.c].Y)
			if dp < tol || math.Abs(dp-dm) > 2*tol {
				continue
			}
			theta, t := fitRigid([]geom.Point{marks[a.c], marks[b.c]}, []geom.Point{pts[a.j], pts[b.j]}, [][2]int{{0, 0}, {1, 1}})
			if math.Abs(theta) > EndTurn {
				continue
			}
			out = append(out, localmap.Pose{X: t[0], Y: t[1], Theta: theta})
		}
	}
	return out
}
