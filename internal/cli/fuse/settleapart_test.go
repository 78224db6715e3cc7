package fuse

import (
	"reflect"
	"testing"

	"github.com/clearmatch/clearmatch/fusion"
	"github.com/clearmatch/clearmatch/localmap"
)

// TestSubSet: a frame group's maps alone keep their poses, robots and
// times, and their observations' numbers in the whole set, in order.
func TestSubSet(t *testing.T) {
	lm := func(n int) []localmap.Landmark { return make([]localmap.Landmark, n) }
	s := &localmap.Set{
		Maps:   []localmap.Map{{Name: "a", Landmarks: lm(2)}, {Name: "b", Landmarks: lm(1)}, {Name: "c", Landmarks: lm(3)}},
		Poses:  []localmap.Pose{{X: 1}, {X: 2}, {X: 3}},
		Robots: []string{"r1", "r2", "r1"},
		Times:  []float64{0, 30, 60},
	}
	sub, obs := subSet(s, []int{0, 2}, fusion.ObservationMaps(s))
	if len(sub.Maps) != 2 || sub.Maps[1].Name != "c" || sub.Poses[1].X != 3 || sub.Robots[1] != "r1" || sub.Times[1] != 60 {
		t.Errorf("subSet: %+v", sub)
	}
	if want := []int{0, 1, 3, 4, 5}; !reflect.DeepEqual(obs, want) {
		t.Errorf("observations %v, want %v", obs, want)
	}
}

func TestSubResult(t *testing.T) {
	r := &fusion.Result{Method: "clear", Cluster: []int{4, -1, 2, 4, 7, 2}, Clusters: 8}
	got := subResult(r, []int{2, 3, 1, 5})
	if want := []int{0, 1, -1, 0}; !reflect.DeepEqual(got.Cluster, want) || got.Clusters != 2 || got.Method != "clear" {
		t.Errorf("subResult: %+v, want clusters %v of 2", got, want)
	}
}
