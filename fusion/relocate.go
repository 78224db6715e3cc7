package fusion

import (
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// Relocating a settled map's misplaced maps. Tracking places a map by
// two agreeing pairings, and where two wrong ones agree, the map (often
// with its neighbours) settles where its landmarks lie by other
// landmarks' clusters: the odometry between neighbouring maps is too
// uncertain to pull it back, and associating again near where it is only
// confirms it. Relocate tries each map's rigid placements near where it
// is against the optimized landmarks, as a SLAM front end relocalizes,
// and moves the map where one placement alone explains more of its
// landmarks than the current one (docs/decisions.md, "Relocating a
// misplaced map").

// RelocateReach is how far from where a map puts its landmark a cluster
// may be to be paired with it in a placement, in tolerances: with
// AutoTolerance, a landmark spacing and a quarter.
const RelocateReach = 5

// RelocateTurn bounds a placement's turn from the map's pose, radians: a
// few times the odometry's heading uncertainty from one map to the next
// (docs/decisions.md).
const RelocateTurn = 0.35

// RelocateGain is how many more of a map's landmarks a placement must
// explain than its current one does for the map to move: one more is as
// often a chance alignment as a right one.
const RelocateGain = 2

// Relocated is what Relocate returns: the clusters with the moved maps'
// observations in their new clusters (or none), every map's pose with
// the moved maps at their new one, and how many maps moved.
type Relocated struct {
	Result *Result
	Poses  []localmap.Pose
	Maps   int
}

// mapPlacement is a map's landmarks placed by a pose: how many lie within
// the radius of a cluster, each its own (cluster per landmark, −1 for
// none).
type mapPlacement struct {
	pose    localmap.Pose
	explain int
	cluster []int
}

// Relocate moves each map of r (optimized by opt; each component and
// frame group apart, as Reassociate) to the rigid placement against opt's
// landmarks that explains the most of its landmarks, each by a cluster of
// its own within radius, when that is RelocateGain or more than its own
// observations within radius of their clusters, and no placement that
// moves a landmark over two tolerances from it explains as many. A
// placement pairs two of the map's landmarks with clusters within
// RelocateReach tolerances of them, as far apart (within two tolerances),
// and turns the map by RelocateTurn at most. Every map is judged against
// the same landmarks. Clusters smaller than minCluster are dropped.
func Relocate(s *localmap.Set, r *Result, opt *Optimized, frames []int, tol, radius float64, minCluster int) *Relocated {
	l, key := newRelocation(s, r, opt, frames, tol, radius)
	out := &Relocated{Poses: append([]localmap.Pose(nil), opt.Graph.Poses...)}
	cluster := append([]int(nil), r.Cluster...)
	first := 0
	for k, m := range s.Maps {
		l.key = key[k]
		if p, ok := l.better(m.Landmarks, opt.Graph.Poses[k], r.Cluster[first:first+len(m.Landmarks)]); ok {
			out.Poses[k] = p.pose
			copy(cluster[first:], p.cluster)
			out.Maps++
		}
		first += len(m.Landmarks)
	}
	out.Result = &Result{Method: r.Method, Seconds: r.Seconds}
	out.Result.Cluster, out.Result.Clusters = renumber(eval.MinTrack(cluster, minCluster))
	return out
}

// relocation is a map's search: the clusters it may pair with (those of
// its component and frame group, key) and the radii.
type relocation struct {
	marks       []geom.Point
	grid        *geom.Grid
	clusterKey  []int
	key         int
	tol, radius float64
}

// newRelocation is the search against opt's landmarks, each cluster of r
// of the key (frameKeys) of its observations' maps, and each map's key.
func newRelocation(s *localmap.Set, r *Result, opt *Optimized, frames []int, tol, radius float64) (*relocation, []int) {
	marks := make([]geom.Point, len(opt.Graph.Landmarks))
	for c, m := range opt.Graph.Landmarks {
		marks[c] = geom.Point{X: m[0], Y: m[1]}
	}
	key := frameKeys(opt, frames)
	obsMap := ObservationMaps(s)
	clusterKey := make([]int, len(marks))
	for g, c := range r.Cluster {
		if c >= 0 && c < len(marks) {
			clusterKey[c] = key[obsMap[g]]
		}
	}
	return &relocation{marks: marks, grid: geom.NewGrid(marks, max(radius, 1e-6)), clusterKey: clusterKey, tol: tol, radius: radius}, key
}

// better is the placement of lms the map should move to from pose,
// given its observations' clusters, and whether there is one.
func (l *relocation) better(lms []localmap.Landmark, pose localmap.Pose, clusters []int) (mapPlacement, bool) {
	current := l.explained(lms, pose, clusters)
	if len(lms) < current+RelocateGain {
		return mapPlacement{}, false
	}
	tried := l.placements(lms, pose)
	if len(tried) == 0 {
		return mapPlacement{}, false
	}
	best := mostExplaining(tried, pose)
	if best.explain < current+RelocateGain {
		return mapPlacement{}, false
	}
	local := landmarkPoints(lms)
	for _, p := range tried {
		if p.explain == best.explain && placedApart(local, p.pose, best.pose, 2*l.tol) {
			return mapPlacement{}, false // two placements explain as much: neither is known
		}
	}
	return best, true
}

// mostExplaining is the placement of tried (not empty) that explains
// the most landmarks, the one nearest pose on a tie (then the first).
func mostExplaining(tried []mapPlacement, pose localmap.Pose) mapPlacement {
	best := tried[0]
	for _, p := range tried[1:] {
		if p.explain > best.explain || p.explain == best.explain && shift(p.pose, pose) < shift(best.pose, pose) {
			best = p
		}
	}
	return best
}

// candidate pairs landmark j of a map with cluster c.
type candidate struct{ j, c int }

// placements is every placement of lms that two candidate pairings fix
// (placementPoses).
func (l *relocation) placements(lms []localmap.Landmark, pose localmap.Pose) []mapPlacement {
	var out []mapPlacement
	for _, p := range l.placementPoses(lms, pose) {
		out = append(out, l.place(lms, p))
	}
	return out
}

// placementPoses is every pose of lms that two candidate pairings fix:
// each of two landmarks with a cluster of the key within RelocateReach
// tolerances of where pose puts it, as far apart within two tolerances,
// turning the map RelocateTurn at most.
func (l *relocation) placementPoses(lms []localmap.Landmark, pose localmap.Pose) []localmap.Pose {
	reach := RelocateReach * l.tol
	var cs []candidate
	for j, lm := range lms {
		x, y := pose.Apply(lm.X, lm.Y)
		var near []int
		l.grid.Near(x, y, reach, func(c int32) {
			if l.clusterKey[c] == l.key && math.Hypot(l.marks[c].X-x, l.marks[c].Y-y) <= reach {
				near = append(near, int(c))
			}
		})
		sort.Ints(near)
		for _, c := range near {
			cs = append(cs, candidate{j, c})
		}
	}
	if len(cs) > maxPosedCandidates {
		return nil // too many to say which
	}
	var out []localmap.Pose
	for x, a := range cs {
		for _, b := range cs[x+1:] {
			if a.j == b.j || a.c == b.c {
				continue
			}
			dm := math.Hypot(lms[a.j].X-lms[b.j].X, lms[a.j].Y-lms[b.j].Y)
			dc := math.Hypot(l.marks[a.c].X-l.marks[b.c].X, l.marks[a.c].Y-l.marks[b.c].Y)
			if math.Abs(dm-dc) > 2*l.tol {
				continue
			}
			local := []geom.Point{{X: lms[a.j].X, Y: lms[a.j].Y}, {X: lms[b.j].X, Y: lms[b.j].Y}}
			theta, t := fitRigid([]geom.Point{l.marks[a.c], l.marks[b.c]}, local, [][2]int{{0, 0}, {1, 1}})
			if math.Abs(math.Remainder(theta-pose.Theta, 2*math.Pi)) > RelocateTurn {
				continue
			}
			out = append(out, localmap.Pose{X: t[0], Y: t[1], Theta: theta})
		}
	}
	return out
}

// place puts lms at pose and gives each landmark the nearest cluster
// within radius, closest first, one landmark per cluster.
func (l *relocation) place(lms []localmap.Landmark, pose localmap.Pose) mapPlacement {
	var pairs []near
	for j, lm := range lms {
		x, y := pose.Apply(lm.X, lm.Y)
		l.grid.Near(x, y, l.radius, func(c int32) {
			if d := math.Hypot(l.marks[c].X-x, l.marks[c].Y-y); l.clusterKey[c] == l.key && d <= l.radius {
				pairs = append(pairs, near{a: j, b: int(c), d: d})
			}
		})
	}
	p := mapPlacement{pose: pose}
	p.cluster, p.explain = closestFirst(pairs, len(lms))
	return p
}

// closestFirst gives each of n points the nearest of pairs' marks (pairs:
// point a, mark b, distance d), closest pair first, one point per mark:
// each point's mark (−1: none) and how many have one. It sorts pairs.
func closestFirst(pairs []near, n int) ([]int, int) {
	sortNear(pairs)
	mark := make([]int, n)
	for j := range mark {
		mark[j] = -1
	}
	taken, matched := map[int]bool{}, 0
	for _, p := range pairs {
		if mark[p.a] < 0 && !taken[p.b] {
			mark[p.a], taken[p.b] = p.b, true
			matched++
		}
	}
	return mark, matched
}

// shift is how far p's origin lies from q's.
func shift(p, q localmap.Pose) float64 { return math.Hypot(p.X-q.X, p.Y-q.Y) }

// landmarkPoints is lms's positions in their map's frame.
func landmarkPoints(lms []localmap.Landmark) []geom.Point {
	pts := make([]geom.Point, len(lms))
	for j, lm := range lms {
		pts[j] = geom.Point{X: lm.X, Y: lm.Y}
	}
	return pts
}

// placedApart reports whether poses p and q put some point of pts (in
// their frame) more than d apart.
func placedApart(pts []geom.Point, p, q localmap.Pose, d float64) bool {
	for _, pt := range pts {
		px, py := p.Apply(pt.X, pt.Y)
		qx, qy := q.Apply(pt.X, pt.Y)
		if math.Hypot(px-qx, py-qy) > d {
			return true
		}
	}
	return false
}
