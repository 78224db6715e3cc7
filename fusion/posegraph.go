package fusion

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"github.com/clearmatch/clearmatch/localmap"
)

// PoseGraph is the fused map as a 2-D least-squares problem, the one
// Optimize solves and WriteG2O hands to g2o or GTSAM: each map frame's
// pose and each fused landmark's position are unknowns; odometry
// measures the motion between consecutive map frames, and every
// observation kept measures its fused landmark in its map's frame.
type PoseGraph struct {
	// Poses are the map frames' initial poses, Landmarks the fused
	// landmarks' initial positions (by cluster).
	Poses     []localmap.Pose
	Landmarks [][2]float64
	Odometry  []OdometryEdge
	// Observations have the standard deviation LandmarkSigma (metres).
	Observations  []Observation
	LandmarkSigma float64
}

// OdometryEdge measures map frame To in map frame From (Delta), with
// standard deviations SigmaXY (m) and SigmaTheta (rad).
type OdometryEdge struct {
	From, To            int
	Delta               localmap.Pose
	SigmaXY, SigmaTheta float64
}

// Observation is fused landmark Landmark seen at X, Y in map Map's frame.
type Observation struct {
	Map, Landmark int
	X, Y          float64
}

// Noise is the pose graph's measurement model (standard deviations).
type Noise struct {
	// Landmark is a landmark's position error within its map, metres.
	Landmark float64
	// Drift (m) and TurnDrift (rad) are the odometry's errors per metre
	// of path between consecutive maps; Drift 0 writes no odometry edge,
	// for poses placed by the association, which are no measurement.
	Drift, TurnDrift float64
}

// DefaultNoise is the model where the data give no estimate
// (EstimateNoise): 0.02 m and 0.003 rad per metre of path, landmarks to
// 0.3 m.
var DefaultNoise = Noise{Landmark: 0.3, Drift: 0.02, TurnDrift: DefaultTurnDrift}

// minSigmaXY and minSigmaTheta floor an odometry edge's deviations, for
// maps a few centimetres apart; minLandmarkSigma floors an estimated
// landmark deviation.
const (
	minSigmaXY       = 0.01
	minSigmaTheta    = 0.001
	minLandmarkSigma = 0.01
)

// NewPoseGraph is the problem of s's maps (s.Poses, which it needs) and
// r's clusters, the fused landmarks starting at fused (Fuse's). Odometry
// joins each robot's consecutive maps, its deviations growing with the
// straight path between their poses.
func NewPoseGraph(s *localmap.Set, r *Result, fused []Landmark, n Noise) (*PoseGraph, error) {
	if s.Poses == nil {
		return nil, fmt.Errorf("fusion: a pose graph needs the map poses")
	}
	g := &PoseGraph{Poses: append([]localmap.Pose(nil), s.Poses...), LandmarkSigma: n.Landmark}
	for _, l := range fused {
		g.Landmarks = append(g.Landmarks, [2]float64{l.X, l.Y})
	}
	for k, p := range s.Previous() {
		if p < 0 || n.Drift <= 0 {
			continue
		}
		d := math.Hypot(s.Poses[k].X-s.Poses[p].X, s.Poses[k].Y-s.Poses[p].Y)
		g.Odometry = append(g.Odometry, OdometryEdge{From: p, To: k, Delta: s.Poses[p].Between(s.Poses[k]),
			SigmaXY: max(n.Drift*d, minSigmaXY), SigmaTheta: max(n.TurnDrift*d, minSigmaTheta)})
	}
	gl := 0
	for k, m := range s.Maps {
		for _, l := range m.Landmarks {
			if c := r.Cluster[gl]; c >= 0 {
				g.Observations = append(g.Observations, Observation{Map: k, Landmark: c, X: l.X, Y: l.Y})
			}
			gl++
		}
	}
	return g, nil
}

// EstimateNoise reads the measurement model from the data. A landmark's
// deviation: how far each pairing's two landmarks lie apart under its map
// pair's motion (the median of that distance is 1.665 σ for two points
// each off by σ in x and y). The odometry's: how far the motion the
// association found between consecutive maps (which overlap most, so
// their association is the surest) is from the one the poses predict, at
// the second map's landmarks, per metre of path (medians over 1.177 and
// 0.674, a Rayleigh's and a half-normal's median in σ), with at least
// minNoisePairs such pairs, most within a landmark spacing (four
// tolerances) of where the poses put them; DefaultNoise's otherwise.
func EstimateNoise(s *localmap.Set, a *Association) Noise {
	n := DefaultNoise
	var d []float64
	for _, p := range a.Pairings {
		m, ok := a.Motions[[2]int{p.I, p.J}]
		if !ok {
			continue
		}
		la, lb := s.Maps[p.I].Landmarks[p.A], s.Maps[p.J].Landmarks[p.B]
		x, y := localmap.Pose{X: m.X, Y: m.Y, Theta: m.Theta}.Apply(lb.X, lb.Y)
		d = append(d, math.Hypot(x-la.X, y-la.Y))
	}
	if len(d) > 0 {
		n.Landmark = max(median(d)/1.665, minLandmarkSigma)
	}
	if s.Poses == nil {
		return n
	}
	var pos, ang, abs []float64
	for k, p := range s.Previous() {
		if p < 0 {
			continue
		}
		m, ok := a.Motions[[2]int{p, k}]
		dist := math.Hypot(s.Poses[k].X-s.Poses[p].X, s.Poses[k].Y-s.Poses[p].Y)
		if !ok || dist <= 0 {
			continue
		}
		var cx, cy float64
		for _, l := range s.Maps[k].Landmarks {
			cx, cy = cx+l.X/float64(len(s.Maps[k].Landmarks)), cy+l.Y/float64(len(s.Maps[k].Landmarks))
		}
		found, pred := localmap.Pose{X: m.X, Y: m.Y, Theta: m.Theta}, s.Poses[p].Between(s.Poses[k])
		fx, fy := found.Apply(cx, cy)
		px, py := pred.Apply(cx, cy)
		abs = append(abs, math.Hypot(fx-px, fy-py))
		pos = append(pos, math.Hypot(fx-px, fy-py)/dist)
		ang = append(ang, math.Abs(math.Remainder(found.Theta-pred.Theta, 2*math.Pi))/dist)
	}
	// Consecutive maps a landmark spacing or more (four tolerances) apart
	// from the poses' say were associated by chance: no estimate.
	if len(pos) >= minNoisePairs && median(abs) <= 4*a.Tolerance {
		n.Drift, n.TurnDrift = median(pos)/1.177, median(ang)/0.674
	}
	return n
}

// minNoisePairs is the fewest consecutive map pairs EstimateNoise reads
// the odometry's noise from.
const minNoisePairs = 5

// median is the middle of v (the upper one for an even count); v is
// sorted in place.
func median(v []float64) float64 {
	sort.Float64s(v)
	return v[len(v)/2]
}

// WriteG2O writes g as a g2o 2D SLAM file: VERTEX_SE2 id x y θ for each
// map frame (ids 0 to maps−1), VERTEX_XY id x y for each fused landmark
// (ids from maps up), EDGE_SE2 from to dx dy dθ and the upper triangle of
// its information for each odometry edge, and EDGE_SE2_XY frame landmark
// x y and its information for each observation. The vertices are at g's
// values: the initial ones, or Optimize's with Solution.Graph.
func (g *PoseGraph) WriteG2O(w io.Writer) error {
	bw := bufio.NewWriter(w)
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }
	for k, p := range g.Poses {
		fmt.Fprintf(bw, "VERTEX_SE2 %d %s %s %s\n", k, f(p.X), f(p.Y), f(p.Theta))
	}
	m := len(g.Poses)
	for c, l := range g.Landmarks {
		fmt.Fprintf(bw, "VERTEX_XY %d %s %s\n", m+c, f(l[0]), f(l[1]))
	}
	for _, e := range g.Odometry {
		ixy, it := 1/(e.SigmaXY*e.SigmaXY), 1/(e.SigmaTheta*e.SigmaTheta)
		fmt.Fprintf(bw, "EDGE_SE2 %d %d %s %s %s %s 0 0 %s 0 %s\n", e.From, e.To, f(e.Delta.X), f(e.Delta.Y), f(e.Delta.Theta), f(ixy), f(ixy), f(it))
	}
	il := f(1 / (g.LandmarkSigma * g.LandmarkSigma))
	for _, o := range g.Observations {
		fmt.Fprintf(bw, "EDGE_SE2_XY %d %d %s %s %s 0 %s\n", o.Map, m+o.Landmark, f(o.X), f(o.Y), il, il)
	}
	return bw.Flush()
}
