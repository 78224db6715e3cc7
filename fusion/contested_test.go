package fusion

import (
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// TestLeaveContested: five maps see landmarks 0, 2 and 3 (and landmark
// 1, apart metres along from landmark 0, rivalMaps of them); a sixth,
// without odometry (its placement is not judged), sees landmarks 0 and
// 3, its 0 shifted towards landmark 1. That observation leaves its
// cluster where it lies farther than ContestedShare of its distance to
// landmark 1's, unless landmark 1's cluster is a stray (one map of five)
// or a piece of landmark 0's (within two tolerances).
func TestLeaveContested(t *testing.T) {
	const tol = 0.4
	for _, tc := range []struct {
		name         string
		apart, shift float64
		rivalMaps    int
		off          bool // Doubt.Contested false
		out          int
	}{
		{"0.5 m of 2 m towards the rival: kept", 2, 0.5, 5, false, 0},
		{"0.7 m of 2 m (0.54 of 1.3 m): kept", 2, 0.7, 5, false, 0},
		{"0.8 m of 2 m (0.67 of 1.2 m): out", 2, 0.8, 5, false, 1},
		{"0.8 m of 2 m, not asked: kept", 2, 0.8, 5, true, 0},
		{"0.8 m of 2 m, the rival a stray: kept", 2, 0.8, 1, false, 0},
		{"0.5 m of 0.7 m, the rival a piece: kept", 0.7, 0.5, 5, false, 0},
	} {
		world := [][2]float64{{0, 0}, {tc.apart, 0}, {4, 0}, {0, 2}}
		s := &localmap.Set{}
		var cluster []int
		for k := range 5 {
			ids := []int{0, 2, 3}
			if k < tc.rivalMaps {
				ids = []int{0, 1, 2, 3}
			}
			s.Maps = append(s.Maps, worldMap(k, world, ids))
			cluster = append(cluster, ids...)
		}
		m := worldMap(5, world, []int{0, 3})
		m.Landmarks[0].X += tc.shift
		s.Maps = append(s.Maps, m)
		cluster = append(cluster, 0, 3)
		g := &PoseGraph{Poses: make([]localmap.Pose, len(s.Maps)), Landmarks: world}
		opt := &Optimized{Graph: g, Component: make([]int, len(s.Maps))}
		got := LeaveAmbiguous(s, &Result{Cluster: cluster, Clusters: len(world)}, opt, nil, Doubt{Tol: tol, Radius: tol, MinCluster: 1, Contested: !tc.off})
		if got.Observations != tc.out || got.Contested != tc.out {
			t.Errorf("%s: %d observations out, %d contested, want %d", tc.name, got.Observations, got.Contested, tc.out)
		}
		if in := got.Result.Cluster[len(cluster)-2] >= 0; in != (tc.out == 0) {
			t.Errorf("%s: the shifted observation in cluster %d", tc.name, got.Result.Cluster[len(cluster)-2])
		}
	}
}
