package eval

import (
	"testing"

	"github.com/clearmatch/clearmatch/colmap"
)

func TestConflicts(t *testing.T) {
	for _, tc := range []struct {
		name   string
		counts []int
		pairs  []colmap.ScenePair
		want   int
	}{
		{"none", []int{2, 2}, []colmap.ScenePair{{I: 0, J: 1, Matches: [][2]int{{0, 0}, {1, 1}}}}, 0},
		{"a loop closing on another keypoint", []int{2, 1, 1}, []colmap.ScenePair{
			{I: 0, J: 1, Matches: [][2]int{{0, 0}}}, {I: 1, J: 2, Matches: [][2]int{{0, 0}}}, {I: 0, J: 2, Matches: [][2]int{{1, 0}}}}, 1},
		{"three in one image", []int{3, 1}, []colmap.ScenePair{{I: 0, J: 1, Matches: [][2]int{{0, 0}, {1, 0}, {2, 0}}}}, 3},
		{"no pairs", []int{4, 4}, nil, 0},
	} {
		if got := Conflicts(tc.counts, tc.pairs); got != tc.want {
			t.Errorf("%s: %d conflicts, want %d", tc.name, got, tc.want)
		}
	}
}
