package fusion

import (
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// gridWorld is six landmarks on a 2 m grid: a map of a few of them fits
// one spacing along as well as where it is.
var gridWorld = [][2]float64{{0, 0}, {2, 0}, {4, 0}, {0, 2}, {2, 2}, {4, 2}}

// ambiguousScene is two maps seeing every landmark at the origin,
// clustered by truth, a third at the origin seeing sees, in their
// clusters, joined to the second by an odometry edge of deviations sigma
// (0: no edge), then maps seeing each of extra.
func ambiguousScene(sees []int, sigma float64, extra ...[]int) (*localmap.Set, *Result, *Optimized) {
	s := &localmap.Set{}
	var cluster []int
	add := func(ids []int) {
		s.Maps = append(s.Maps, worldMap(len(s.Maps), gridWorld, ids))
		cluster = append(cluster, ids...)
	}
	add([]int{0, 1, 2, 3, 4, 5})
	add([]int{0, 1, 2, 3, 4, 5})
	add(sees)
	for _, ids := range extra {
		add(ids)
	}
	g := &PoseGraph{Poses: make([]localmap.Pose, len(s.Maps)), Landmarks: gridWorld}
	if sigma > 0 {
		g.Odometry = []OdometryEdge{{From: 1, To: 2, SigmaXY: sigma, SigmaTheta: sigma}}
	}
	return s, &Result{Cluster: cluster, Clusters: len(gridWorld)}, &Optimized{Graph: g, Component: make([]int, len(s.Maps))}
}

func TestLeaveAmbiguous(t *testing.T) {
	const tol, radius = 0.4, 0.4
	for _, tc := range []struct {
		name  string
		sees  []int
		sigma float64
		extra [][]int
		out   int // observations of the third map left out
	}{
		{"fits one spacing along as well, the odometry allowing it: both out", []int{0, 1}, 1.5, nil, 2},
		{"the odometry rules the other placement out: kept", []int{0, 1}, 0.3, nil, 0},
		{"no odometry edge: not judged", []int{0, 1}, 0, nil, 0},
		{"every other placement explains fewer: kept", []int{0, 1, 2, 3}, 1.5, nil, 0},
		{"one landmark explained: not judged", []int{0}, 1.5, nil, 0},
		{"fits one along as well, by landmarks every map sees: both out", []int{0, 3}, 1.5, fiveTimes([]int{0, 1, 2, 3, 4, 5}), 2},
		{"fits one along only by a stray cluster: kept", []int{0, 3}, 1.5, fiveTimes([]int{0, 1, 2, 3, 5}), 0},
	} {
		s, r, opt := ambiguousScene(tc.sees, tc.sigma, tc.extra...)
		got := LeaveAmbiguous(s, r, opt, nil, Doubt{Tol: tol, Radius: radius, MinCluster: 2})
		if got.Observations != tc.out {
			t.Errorf("%s: %d observations left out, want %d", tc.name, got.Observations, tc.out)
			continue
		}
		for j := range tc.sees {
			in := got.Result.Cluster[12+j] >= 0
			if in == (tc.out > 0) {
				t.Errorf("%s: landmark %d in cluster %d", tc.name, j, got.Result.Cluster[12+j])
			}
		}
		if got.Result.Clusters != len(gridWorld) {
			t.Errorf("%s: %d clusters, want %d (the other maps' stay)", tc.name, got.Result.Clusters, len(gridWorld))
		}
	}
}

// A placement turned 0.3 rad about (−2, 0) puts a map's landmark A on
// cluster 2, 0.6 m from A's (a piece of one landmark), and B on cluster
// 3, 1.8 m from B's (another landmark): only B's observation is doubted.
func TestLeaveAmbiguousPieces(t *testing.T) {
	turn := localmap.Pose{X: -2, Theta: 0.3}
	world := [][2]float64{{0, 0}, {4, 0}}
	for _, p := range [][2]float64{{2, 0}, {6, 0}} {
		x, y := turn.Apply(p[0], p[1])
		world = append(world, [2]float64{x, y})
	}
	s := &localmap.Set{}
	var cluster []int
	for k, ids := range [][]int{{0, 1, 2, 3}, {0, 1, 2, 3}, {0, 1}} {
		s.Maps = append(s.Maps, worldMap(k, world, ids))
		cluster = append(cluster, ids...)
	}
	g := &PoseGraph{Poses: make([]localmap.Pose, 3), Landmarks: world,
		Odometry: []OdometryEdge{{From: 1, To: 2, SigmaXY: 5, SigmaTheta: 1}}}
	got := LeaveAmbiguous(s, &Result{Cluster: cluster, Clusters: 4}, &Optimized{Graph: g, Component: make([]int, 3)}, nil, Doubt{Tol: 0.4, Radius: 0.4, MinCluster: 2})
	if a, b := got.Result.Cluster[8], got.Result.Cluster[9]; got.Observations != 1 || a < 0 || b >= 0 {
		t.Errorf("%d observations out, A in cluster %d, B in %d; want 1, A kept, B out", got.Observations, a, b)
	}
}

func fiveTimes(ids []int) [][]int { return [][]int{ids, ids, ids, ids, ids} }

// runScene is a map seeing every landmark of gridWorld, a map seeing each
// of middle, and another seeing every landmark, all at the origin in
// their clusters, each joined to the next by an odometry edge: the first
// and last edges of deviations ends, the others inner.
func runScene(middle [][]int, ends, inner float64) (*localmap.Set, *Result, *Optimized) {
	all := []int{0, 1, 2, 3, 4, 5}
	sees := append(append([][]int{all}, middle...), all)
	s := &localmap.Set{}
	var cluster []int
	g := &PoseGraph{Poses: make([]localmap.Pose, len(sees)), Landmarks: gridWorld}
	for k, ids := range sees {
		s.Maps = append(s.Maps, worldMap(k, gridWorld, ids))
		cluster = append(cluster, ids...)
		if k > 0 {
			sigma := inner
			if k == 1 || k == len(sees)-1 {
				sigma = ends
			}
			g.Odometry = append(g.Odometry, OdometryEdge{From: k - 1, To: k, SigmaXY: sigma, SigmaTheta: sigma})
		}
	}
	return s, &Result{Cluster: cluster, Clusters: len(gridWorld)}, &Optimized{Graph: g, Component: make([]int, len(sees))}
}

// Maps 1 and 2 fit one spacing along together as well as where they are;
// the odometry between them holds each where the other is.
func TestLeaveAmbiguousRun(t *testing.T) {
	pair := [][]int{{0, 1}, {3, 4}}
	for _, tc := range []struct {
		name        string
		middle      [][]int
		ends, inner float64
		out         int
	}{
		{"the run fits along as well, the odometry either side allowing it: out", pair, 1.5, 0.3, 4},
		{"two maps of the same landmarks, each by a cluster of its own: out", [][]int{{0, 1}, {0, 1}}, 1.5, 0.3, 4},
		{"the odometry either side rules it out: kept", pair, 0.3, 0.3, 0},
		{"a run longer than DoubtRun: kept", append(pair, pair...), 1.5, 0.3, 0},
	} {
		s, r, opt := runScene(tc.middle, tc.ends, tc.inner)
		got := LeaveAmbiguous(s, r, opt, nil, Doubt{Tol: 0.4, Radius: 0.4, MinCluster: 2, Runs: true})
		if got.Observations != tc.out {
			t.Errorf("%s: %d observations left out, want %d", tc.name, got.Observations, tc.out)
		}
		if alone := LeaveAmbiguous(s, r, opt, nil, Doubt{Tol: 0.4, Radius: 0.4, MinCluster: 2}); alone.Observations != 0 {
			t.Errorf("%s: each map alone, %d observations left out, want 0", tc.name, alone.Observations)
		}
		for g := 6; g < len(r.Cluster)-6; g++ {
			if in := got.Result.Cluster[g] >= 0; in == (tc.out > 0) {
				t.Errorf("%s: observation %d in cluster %d", tc.name, g, got.Result.Cluster[g])
			}
		}
	}
}
