package fusion

import (
	"fmt"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// relocateWorld is six landmarks about 2 m apart, not on a grid (a grid
// explains a map as well one spacing along).
var relocateWorld = [][2]float64{{0, 0}, {2, 0.3}, {4.5, -0.2}, {0.4, 2.5}, {2.2, 2.9}, {4.1, 2.4}}

// relocateScene is two maps at their true poses, clustered by truth, and
// a third that sees landmarks sees, at pose (where the optimizer left
// it), with clusters (−1: none). Each map's true pose is the origin.
func relocateScene(sees []int, pose localmap.Pose, clusters []int, component int) (*localmap.Set, *Result, *Optimized) {
	s := &localmap.Set{}
	var cluster []int
	add := func(ids []int, cl []int) {
		s.Maps = append(s.Maps, worldMap(len(s.Maps), relocateWorld, ids))
		cluster = append(cluster, cl...)
	}
	add([]int{0, 1, 2, 3, 4, 5}, []int{0, 1, 2, 3, 4, 5})
	add([]int{0, 1, 2, 3, 4, 5}, []int{0, 1, 2, 3, 4, 5})
	add(sees, clusters)
	opt := &Optimized{
		Graph:     &PoseGraph{Poses: []localmap.Pose{{}, {}, pose}, Landmarks: relocateWorld},
		Component: []int{0, 0, component},
	}
	return s, &Result{Cluster: cluster, Clusters: len(relocateWorld)}, opt
}

// worldMap is map k of a scene's tests: world's landmarks ids, each
// named by its id, at their world positions (the map at the origin).
func worldMap(k int, world [][2]float64, ids []int) localmap.Map {
	m := localmap.Map{Name: fmt.Sprint(k)}
	for _, id := range ids {
		m.Landmarks = append(m.Landmarks, localmap.Landmark{Name: fmt.Sprint(id), X: world[id][0], Y: world[id][1]})
	}
	return m
}

func TestRelocate(t *testing.T) {
	const tol, radius = 0.4, 0.6
	for _, tc := range []struct {
		name      string
		sees      []int
		pose      localmap.Pose
		clusters  []int
		component int
		moves     bool
	}{
		{"a map 0.8 m off, its landmarks in no cluster, moves", []int{0, 1, 4}, localmap.Pose{X: 0.8}, []int{-1, -1, -1}, 0, true},
		{"a map one landmark along, in the wrong clusters, moves", []int{0, 1, 3}, localmap.Pose{X: 2}, []int{1, 2, -1}, 0, true},
		{"a map where its clusters are stays", []int{0, 1, 4}, localmap.Pose{}, []int{0, 1, 4}, 0, false},
		{"two placements explain as much: it stays", []int{0, 1}, localmap.Pose{X: 1}, []int{-1, -1}, 0, false},
		{"a turn past RelocateTurn is not tried", []int{0, 1, 4}, localmap.Pose{X: 1, Theta: 1.2}, []int{-1, -1, -1}, 0, false},
		{"clusters of another component are not tried", []int{0, 1, 4}, localmap.Pose{X: 0.8}, []int{-1, -1, -1}, 1, false},
	} {
		s, r, opt := relocateScene(tc.sees, tc.pose, tc.clusters, tc.component)
		got := Relocate(s, r, opt, nil, tol, radius, 2)
		if (got.Maps == 1) != tc.moves {
			t.Errorf("%s: %d maps moved, want moved %v", tc.name, got.Maps, tc.moves)
			continue
		}
		if !tc.moves {
			if got.Poses[2] != tc.pose {
				t.Errorf("%s: pose %+v, want it kept, %+v", tc.name, got.Poses[2], tc.pose)
			}
			continue
		}
		if p := got.Poses[2]; shift(p, localmap.Pose{}) > 1e-9 || p.Theta > 1e-9 || p.Theta < -1e-9 {
			t.Errorf("%s: pose %+v, want the true one, the origin", tc.name, p)
		}
		for j, id := range tc.sees { // map 2's landmark j joins map 0's landmark id
			if a, b := got.Result.Cluster[12+j], got.Result.Cluster[id]; a != b || a < 0 {
				t.Errorf("%s: landmark %d in cluster %d, want %d (map 0's)", tc.name, id, a, b)
			}
		}
	}
}
