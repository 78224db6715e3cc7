package fusion

import (
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

func TestReassociate(t *testing.T) {
	// Four maps at the origin; each landmark's map-frame position is its
	// optimized position. Observations, in order: map a: 0 (0,0), 1 (5,0);
	// map b: 2 (0.1,0), 3 (9,9); map c: 4 (5.1,0), 5 (0,0.1), 6 (20,20);
	// map d: 7 (20.1,20), 8 (5,0.1).
	at := map[string][][2]float64{"a": {{0, 0}, {5, 0}}, "b": {{0.1, 0}, {9, 9}}, "c": {{5.1, 0}, {0, 0.1}, {20, 20}}, "d": {{20.1, 20}, {5, 0.1}}}
	s := &localmap.Set{}
	for _, name := range []string{"a", "b", "c", "d"} {
		m := localmap.Map{Name: name}
		for k, p := range at[name] {
			m.Landmarks = append(m.Landmarks, localmap.Landmark{Name: string(rune('p' + k)), X: p[0], Y: p[1]})
		}
		s.Maps = append(s.Maps, m)
	}
	poses := make([]localmap.Pose, 4)
	for _, tc := range []struct {
		name    string
		cluster []int
		marks   [][2]float64
		min     int
		want    []int
	}{
		// Clusters 0 {0} and 1 {2} lie 0.1 m apart, from maps a and b:
		// joined; observation 5 (map c, alone) joins them; cluster 2 {1,
		// 4} and lone 8 (map d) make one; 3 stays alone, 6 and 7 group.
		{"join", []int{0, 2, -1, -1, 2, -1, -1, -1, -1}, [][2]float64{{0, 0}, {0.1, 0}, {5.05, 0}}, 1,
			[]int{0, 1, 0, 2, 1, 0, 3, 3, 1}},
		// Observations 3 (9, 9) and 1 (5, 0) are far from their clusters'
		// landmarks: they leave, and the rest is as above.
		{"leave", []int{0, 1, 1, 0, -1, -1, -1, -1, -1}, [][2]float64{{0, 0}, {0.05, 0}}, 1,
			[]int{0, 1, 0, 2, 1, 0, 3, 3, 1}},
		// minCluster 3 drops the groups of two.
		{"small groups dropped", []int{0, 2, -1, -1, 2, -1, -1, -1, -1}, [][2]float64{{0, 0}, {0.1, 0}, {5.05, 0}}, 3,
			[]int{0, 1, 0, -1, 1, 0, -1, -1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Result{Method: "clear", Cluster: tc.cluster, Clusters: len(tc.marks)}
			got := Reassociate(s, r, &Optimized{Graph: &PoseGraph{Poses: poses, Landmarks: tc.marks}, Component: make([]int, 4)}, nil, 0.5, tc.min)
			if !slices.Equal(got.Cluster, tc.want) || got.Method != "clear" {
				t.Fatalf("clusters %v, want %v", got.Cluster, tc.want)
			}
		})
	}
}

// Two clusters of one map's two landmarks stay apart however near; a
// third map's landmark between them joins the nearer (the lower at a tie).
func TestReassociateNeverAMapTwice(t *testing.T) {
	s := &localmap.Set{Maps: []localmap.Map{
		{Name: "a", Landmarks: []localmap.Landmark{{Name: "p"}, {Name: "q", X: 0.1}}},
		{Name: "b", Landmarks: []localmap.Landmark{{Name: "p", X: 0.05}}},
	}}
	r := &Result{Cluster: []int{0, 1, -1}, Clusters: 2}
	opt := &Optimized{Graph: &PoseGraph{Poses: make([]localmap.Pose, 2), Landmarks: [][2]float64{{0, 0}, {0.1, 0}}}, Component: []int{0, 0}}
	if got := Reassociate(s, r, opt, nil, 0.5, 1); !slices.Equal(got.Cluster, []int{0, 1, 0}) {
		t.Fatalf("clusters %v, want [0 1 0]", got.Cluster)
	}
	// Map b in another component: its frame is unrelated, it joins none.
	if got := Reassociate(s, r, opt, []int{0, 1}, 0.5, 1); !slices.Equal(got.Cluster, []int{0, 1, 2}) {
		t.Fatalf("across frame groups: clusters %v, want [0 1 2]", got.Cluster)
	}
	opt.Component = []int{0, 1}
	if got := Reassociate(s, r, opt, nil, 0.5, 1); !slices.Equal(got.Cluster, []int{0, 1, 2}) {
		t.Fatalf("across components: clusters %v, want [0 1 2]", got.Cluster)
	}
}
