package fusion

import (
	"math"
	"slices"
	"sort"

	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/localmap"
)

// Leaving ambiguous associations out. A map of a few landmarks among
// landmarks a spacing apart often fits two places: where it is, and one
// a landmark over, each explaining as many of its landmarks. Where the
// odometry cannot tell them apart either, which clusters its landmarks
// belong to is not known, and a SLAM front end does not commit an
// association it cannot tell from another (the ambiguity test of joint
// compatibility, Neira and Tardós 2001): the landmarks the two
// placements assign to clusters over half a landmark spacing apart leave
// their clusters (docs/decisions.md, "Leaving ambiguous maps' landmarks
// out").

// AmbiguousSigmas is how far from each odometry edge's prediction of a
// map's pose another placement may lie and still be one the odometry
// allows, in that edge's standard deviations (position and heading
// apart).
const AmbiguousSigmas = 2

// Doubted is what LeaveAmbiguous returns: the clusters with the doubted
// observations in none, how many maps had any, how many observations
// left a cluster, and how many of those for lying toward a rival
// landmark (contested) rather than for their map's other placement.
type Doubted struct {
	Result                        *Result
	Maps, Observations, Contested int
}

// Doubt is what LeaveAmbiguous judges by: the association's tolerance
// (Tol), how near its cluster's landmark a placement must put a landmark
// to explain it (Radius), the smallest cluster kept (MinCluster), whether
// runs of 2 to DoubtRun consecutive maps are placed together as well as
// each map (Runs), and whether observations lying toward another
// landmark leave their clusters too (Contested).
type Doubt struct {
	Tol, Radius     float64
	MinCluster      int
	Runs, Contested bool
}

// DoubtRun is the most consecutive maps of a robot the doubt places
// together. Where two or three maps in a row settled a landmark over,
// the odometry between them agrees with the wrong placement, so judged
// one at a time none is in doubt; placed together, only the odometry
// joining them to the maps either side judges them (docs/decisions.md,
// "Doubting runs of maps").
const DoubtRun = 3

// LeaveAmbiguous takes out of their clusters (r's, optimized by opt; each
// component and frame group apart, as Reassociate) the observations of
// each map, and with d.Runs of each run of 2 to DoubtRun consecutive maps
// of a robot placed together as opt places them, that another placement
// assigns differently, where that placement explains as many of the
// landmarks (each map's by clusters of their own within d.Radius) as
// their clusters do where they are, puts some landmark over two
// tolerances from where it is, and lies within AmbiguousSigmas of every
// prediction of an odometry edge joining the map or run to another map;
// not where the two clusters lie within two tolerances (pieces of one
// landmark). A placement explains landmarks by established clusters only
// (established). Placements are Relocate's (two pairings within
// RelocateReach tolerances, a turn within RelocateTurn); a map or run
// with no odometry edge to another map, or fewer than two landmarks
// explained, is not judged. With d.Contested, so does an observation of
// any map lying farther from its cluster's landmark than ContestedShare
// of its distance to another established cluster's, not a piece of its
// own. Clusters smaller than d.MinCluster are dropped.
func LeaveAmbiguous(s *localmap.Set, r *Result, opt *Optimized, frames []int, d Doubt) *Doubted {
	l, key := newRelocation(s, r, opt, frames, d.Tol, d.Radius)
	established(l.clusterKey, r.Cluster)
	first := observationStarts(s)
	edges := mapEdges(opt.Graph)
	doubted := make([]bool, len(r.Cluster))
	longest := 1
	if d.Runs {
		longest = DoubtRun
	}
	for _, run := range doubtRuns(s, longest) {
		if !sameKey(run, key) {
			continue
		}
		l.key = key[run[0]]
		for _, g := range l.runDoubted(s, opt.Graph, edges, first, r.Cluster, run) {
			doubted[g] = true
		}
	}
	out := &Doubted{}
	cluster := append([]int(nil), r.Cluster...)
	for k, m := range s.Maps {
		mine := cluster[first[k]:first[k+1]]
		n := 0
		for j := range mine {
			if doubted[first[k]+j] {
				mine[j] = -1
				n++
			}
		}
		var contested []int
		if d.Contested {
			l.key = key[k]
			contested = l.contested(m.Landmarks, opt.Graph.Poses[k], mine)
		}
		for _, j := range contested {
			mine[j] = -1
		}
		if n+len(contested) > 0 {
			out.Maps++
			out.Observations += n + len(contested)
			out.Contested += len(contested)
		}
	}
	out.Result = &Result{Method: r.Method, Seconds: r.Seconds}
	out.Result.Cluster, out.Result.Clusters = renumber(eval.MinTrack(cluster, d.MinCluster))
	return out
}

// doubtRuns is every run of 1 to longest consecutive maps of each of
// s's robots (robotChains).
func doubtRuns(s *localmap.Set, longest int) [][]int {
	var runs [][]int
	for _, chain := range robotChains(s) {
		for n := 1; n <= longest; n++ {
			for i := 0; i+n <= len(chain); i++ {
				runs = append(runs, chain[i:i+n])
			}
		}
	}
	return runs
}

// runDoubted is which observations (numbered as in cluster; first as
// observationStarts; edges as mapEdges) of run's maps, placed together
// where g puts them, a placement within the predictions of the odometry
// edges joining the run to other maps assigns otherwise while explaining
// as many.
func (l *relocation) runDoubted(s *localmap.Set, g *PoseGraph, edges [][]int, first, cluster, run []int) []int {
	predicted := runPredictions(g, edges, run)
	if len(predicted) == 0 {
		return nil
	}
	lms, within, obs := runLandmarks(s, g.Poses, first, run)
	clusters := make([]int, len(obs))
	for j, o := range obs {
		clusters[j] = cluster[o]
	}
	pose := g.Poses[run[0]]
	current := l.explained(lms, pose, clusters)
	if current < 2 {
		return nil
	}
	local := landmarkPoints(lms)
	reassigned := make([]bool, len(lms))
	for _, at := range l.placementPoses(lms, pose) {
		p := l.placeRun(s, run, within, at)
		if p.explain < current || !placedApart(local, p.pose, pose, 2*l.tol) || !runAllowed(predicted, within, p.pose) {
			continue
		}
		for j, c := range p.cluster {
			if c != clusters[j] && clusters[j] >= 0 && !l.pieces(c, clusters[j]) {
				reassigned[j] = true
			}
		}
	}
	var out []int
	for j, c := range reassigned {
		if c {
			out = append(out, obs[j])
		}
	}
	return out
}

// placeRun places run's maps at pose (each map at pose composed with its
// pose within the run), each map's landmarks by clusters of their own.
func (l *relocation) placeRun(s *localmap.Set, run []int, within []localmap.Pose, pose localmap.Pose) mapPlacement {
	out := mapPlacement{pose: pose}
	for i, k := range run {
		p := l.place(s.Maps[k].Landmarks, compose(pose, within[i]))
		out.explain += p.explain
		out.cluster = append(out.cluster, p.cluster...)
	}
	return out
}

// runLandmarks is the landmarks of run's maps in the frame of its first
// (poses placing them), each map's pose in that frame (within), and each
// landmark's observation number.
func runLandmarks(s *localmap.Set, poses []localmap.Pose, first, run []int) ([]localmap.Landmark, []localmap.Pose, []int) {
	var lms []localmap.Landmark
	var obs []int
	within := make([]localmap.Pose, len(run))
	for i, k := range run {
		if i > 0 {
			within[i] = poses[run[0]].Between(poses[k])
		}
		for j, lm := range s.Maps[k].Landmarks {
			lm.X, lm.Y = within[i].Apply(lm.X, lm.Y)
			lms = append(lms, lm)
			obs = append(obs, first[k]+j)
		}
	}
	return lms, within, obs
}

// runPredictions is the predictions of the odometry edges of g with one
// end in run (edges: each map's edges, by index), from the poses of their
// other ends.
func runPredictions(g *PoseGraph, edges [][]int, run []int) []posePrediction {
	at := func(k int) int { return slices.Index(run, k) }
	var out []posePrediction
	for _, k := range run {
		for _, i := range edges[k] {
			e := g.Odometry[i]
			from, to := at(e.From), at(e.To)
			switch {
			case to >= 0 && from < 0:
				out = append(out, posePrediction{to, compose(g.Poses[e.From], e.Delta), e.SigmaXY, e.SigmaTheta})
			case from >= 0 && to < 0:
				out = append(out, posePrediction{from, compose(g.Poses[e.To], inverse(e.Delta)), e.SigmaXY, e.SigmaTheta})
			}
		}
	}
	return out
}

// mapEdges is the indices of g's odometry edges at each map.
func mapEdges(g *PoseGraph) [][]int {
	out := make([][]int, len(g.Poses))
	for i, e := range g.Odometry {
		out[e.From] = append(out[e.From], i)
		out[e.To] = append(out[e.To], i)
	}
	return out
}

// runAllowed reports whether the run placed at pose (its maps at pose
// composed with within) lies within AmbiguousSigmas of every prediction.
func runAllowed(predicted []posePrediction, within []localmap.Pose, pose localmap.Pose) bool {
	for _, p := range predicted {
		if !p.allows(compose(pose, within[p.at])) {
			return false
		}
	}
	return true
}

// pieces reports whether clusters a and b (a may be −1, none) lie within
// two tolerances, half a landmark spacing: more likely pieces of one
// landmark than two, so a map between them is no ambiguity of which
// landmark it saw.
func (l *relocation) pieces(a, b int) bool {
	return a >= 0 && math.Hypot(l.marks[a].X-l.marks[b].X, l.marks[a].Y-l.marks[b].Y) <= 2*l.tol
}

// explained is how many of lms (the map at pose) lie within the radius
// of their clusters' landmarks.
func (l *relocation) explained(lms []localmap.Landmark, pose localmap.Pose, clusters []int) int {
	n := 0
	for j, c := range clusters {
		x, y := pose.Apply(lms[j].X, lms[j].Y)
		if c >= 0 && c < len(l.marks) && math.Hypot(x-l.marks[c].X, y-l.marks[c].Y) <= l.radius {
			n++
		}
	}
	return n
}

// posePrediction is the pose of a run's map (at: its place in the run)
// as one odometry edge and the other end's pose predict it, with the
// edge's standard deviations.
type posePrediction struct {
	at                  int
	pose                localmap.Pose
	sigmaXY, sigmaTheta float64
}

// allows reports whether pose lies within AmbiguousSigmas of the
// prediction.
func (p posePrediction) allows(pose localmap.Pose) bool {
	return shift(pose, p.pose) <= AmbiguousSigmas*p.sigmaXY &&
		math.Abs(math.Remainder(pose.Theta-p.pose.Theta, 2*math.Pi)) <= AmbiguousSigmas*p.sigmaTheta
}

// established marks the clusters of fewer than half the median cluster's
// observations as of no frame group (key −1), so no placement pairs with
// them: where a team's robots disagree, their strays and misplaced maps
// make small clusters about the landmarks, and a placement that explains
// a map by those is no rival to one by the landmarks every robot sees.
func established(clusterKey, cluster []int) {
	size := make([]int, len(clusterKey))
	for _, c := range cluster {
		if c >= 0 && c < len(size) {
			size[c]++
		}
	}
	sorted := append([]int(nil), size...)
	sort.Ints(sorted)
	if len(sorted) == 0 {
		return
	}
	half := sorted[len(sorted)/2] / 2
	for c, n := range size {
		if n < half {
			clusterKey[c] = -1
		}
	}
}
