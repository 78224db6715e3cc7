package fusion

import (
	"math"
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
// to explain it (Radius), the smallest cluster kept (MinCluster), and
// whether observations lying toward another landmark leave their
// clusters too (Contested).
type Doubt struct {
	Tol, Radius float64
	MinCluster  int
	Contested   bool
}

// LeaveAmbiguous takes out of their clusters the observations of each map
// of r (optimized by opt; each component and frame group apart, as
// Reassociate) that another placement of the map assigns differently,
// where that placement explains as many of its landmarks (each by a
// cluster of its own within d.Radius) as the map's clusters do where it
// is, puts some landmark over two tolerances from where the map puts it,
// and lies within AmbiguousSigmas of every odometry edge's prediction of
// the map's pose; not where the two clusters lie within two tolerances
// (pieces of one landmark). A placement explains landmarks by established
// clusters only (established). Placements are Relocate's (two pairings
// within RelocateReach tolerances, a turn within RelocateTurn); a map
// with no odometry edge, or fewer than two landmarks explained, is not
// judged. With d.Contested, so does an observation of any map lying
// farther from its cluster's landmark than ContestedShare of its distance
// to another established cluster's, not a piece of its own. Clusters
// smaller than d.MinCluster are dropped.
func LeaveAmbiguous(s *localmap.Set, r *Result, opt *Optimized, frames []int, d Doubt) *Doubted {
	l, key := newRelocation(s, r, opt, frames, d.Tol, d.Radius)
	established(l.clusterKey, r.Cluster)
	predicted := odometryPredictions(opt.Graph)
	out := &Doubted{}
	cluster := append([]int(nil), r.Cluster...)
	first := 0
	for k, m := range s.Maps {
		l.key = key[k]
		mine := cluster[first : first+len(m.Landmarks)]
		doubted := l.doubted(m.Landmarks, opt.Graph.Poses[k], mine, predicted[k])
		for _, j := range doubted {
			mine[j] = -1
		}
		var contested []int
		if d.Contested {
			contested = l.contested(m.Landmarks, opt.Graph.Poses[k], mine)
		}
		for _, j := range contested {
			mine[j] = -1
		}
		if n := len(doubted) + len(contested); n > 0 {
			out.Maps++
			out.Observations += n
			out.Contested += len(contested)
		}
		first += len(m.Landmarks)
	}
	out.Result = &Result{Method: r.Method, Seconds: r.Seconds}
	out.Result.Cluster, out.Result.Clusters = renumber(eval.MinTrack(cluster, d.MinCluster))
	return out
}

// doubted is which of lms's observations (clusters, the map at pose) a
// placement within the odometry's predictions (predicted) assigns
// otherwise while explaining as many.
func (l *relocation) doubted(lms []localmap.Landmark, pose localmap.Pose, clusters []int, predicted []posePrediction) []int {
	if len(predicted) == 0 {
		return nil
	}
	current := l.explained(lms, pose, clusters)
	if current < 2 {
		return nil
	}
	local := landmarkPoints(lms)
	contested := make([]bool, len(lms))
	for _, p := range l.placements(lms, pose) {
		if p.explain < current || !placedApart(local, p.pose, pose, 2*l.tol) || !allows(predicted, p.pose) {
			continue
		}
		for j, c := range p.cluster {
			if c != clusters[j] && clusters[j] >= 0 && !l.pieces(c, clusters[j]) {
				contested[j] = true
			}
		}
	}
	var out []int
	for j, c := range contested {
		if c {
			out = append(out, j)
		}
	}
	return out
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

// posePrediction is a map's pose as one odometry edge and the other end's
// pose predict it, with the edge's standard deviations.
type posePrediction struct {
	pose                localmap.Pose
	sigmaXY, sigmaTheta float64
}

// odometryPredictions is each map's poses as its odometry edges predict
// them from the other ends' poses in g.
func odometryPredictions(g *PoseGraph) [][]posePrediction {
	out := make([][]posePrediction, len(g.Poses))
	for _, e := range g.Odometry {
		out[e.To] = append(out[e.To], posePrediction{compose(g.Poses[e.From], e.Delta), e.SigmaXY, e.SigmaTheta})
		out[e.From] = append(out[e.From], posePrediction{compose(g.Poses[e.To], inverse(e.Delta)), e.SigmaXY, e.SigmaTheta})
	}
	return out
}

// allows reports whether pose lies within AmbiguousSigmas of every
// prediction.
func allows(predicted []posePrediction, pose localmap.Pose) bool {
	for _, p := range predicted {
		if shift(pose, p.pose) > AmbiguousSigmas*p.sigmaXY ||
			math.Abs(math.Remainder(pose.Theta-p.pose.Theta, 2*math.Pi)) > AmbiguousSigmas*p.sigmaTheta {
			return false
		}
	}
	return true
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
