package fusion

import (
	"fmt"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// gridWorld is six landmarks on a 2 m grid: a map of a few of them fits
// one spacing along as well as where it is.
var gridWorld = [][2]float64{{0, 0}, {2, 0}, {4, 0}, {0, 2}, {2, 2}, {4, 2}}

// ambiguousScene is two maps seeing every landmark at the origin,
// clustered by truth, and a third at the origin seeing sees, in their
// clusters, joined to the second by an odometry edge of deviations sigma
// (0: no edge).
func ambiguousScene(sees []int, sigma float64) (*localmap.Set, *Result, *Optimized) {
	s := &localmap.Set{}
	var cluster []int
	add := func(ids []int) {
		m := localmap.Map{Name: fmt.Sprint(len(s.Maps))}
		for _, id := range ids {
			w := gridWorld[id]
			m.Landmarks = append(m.Landmarks, localmap.Landmark{Name: fmt.Sprint(id), X: w[0], Y: w[1]})
		}
		s.Maps = append(s.Maps, m)
		cluster = append(cluster, ids...)
	}
	add([]int{0, 1, 2, 3, 4, 5})
	add([]int{0, 1, 2, 3, 4, 5})
	add(sees)
	g := &PoseGraph{Poses: make([]localmap.Pose, 3), Landmarks: gridWorld}
	if sigma > 0 {
		g.Odometry = []OdometryEdge{{From: 1, To: 2, SigmaXY: sigma, SigmaTheta: sigma}}
	}
	return s, &Result{Cluster: cluster, Clusters: len(gridWorld)}, &Optimized{Graph: g, Component: make([]int, 3)}
}

func TestLeaveAmbiguous(t *testing.T) {
	const tol, radius = 0.4, 0.4
	for _, tc := range []struct {
		name  string
		sees  []int
		sigma float64
		out   int // observations of the third map left out
	}{
		{"fits one spacing along as well, the odometry allowing it: both out", []int{0, 1}, 1.5, 2},
		{"the odometry rules the other placement out: kept", []int{0, 1}, 0.3, 0},
		{"no odometry edge: not judged", []int{0, 1}, 0, 0},
		{"every other placement explains fewer: kept", []int{0, 1, 2, 3}, 1.5, 0},
		{"one landmark explained: not judged", []int{0}, 1.5, 0},
	} {
		s, r, opt := ambiguousScene(tc.sees, tc.sigma)
		got := LeaveAmbiguous(s, r, opt, nil, tol, radius, 2)
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
