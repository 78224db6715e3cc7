package tracks

import (
	"context"
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
)

func TestMerge(t *testing.T) {
	// Three images of two keypoints each: observations 0,1 | 2,3 | 4,5.
	views := &Views{Sets: []*features.Set{{Keypoints: make([]features.Keypoint, 2)}, {Keypoints: make([]features.Keypoint, 2)}, {Keypoints: make([]features.Keypoint, 2)}}}
	pair := func(i, j int, ms ...[2]int32) pairwise.Verified {
		v := pairwise.Verified{I: i, J: j, Model: pairwise.Fundamental}
		for _, m := range ms {
			v.Matches = append(v.Matches, pairwise.Match{A: m[0], B: m[1]})
		}
		return v
	}
	for _, tc := range []struct {
		name  string
		item  []int
		pairs []pairwise.Verified
		o     MergeOptions
		want  []int
		st    MergeStats
	}{
		{"linked, disjoint", []int{0, -1, 1, -1, -1, -1}, []pairwise.Verified{pair(0, 1, [2]int32{0, 0})}, MergeOptions{On: true}, []int{0, -1, 0, -1, -1, -1}, MergeStats{clear.MergeStats{Merges: 1}}},
		{"off", []int{0, -1, 1, -1, -1, -1}, []pairwise.Verified{pair(0, 1, [2]int32{0, 0})}, MergeOptions{}, []int{0, -1, 1, -1, -1, -1}, MergeStats{}},
		{"too few links", []int{0, -1, 1, -1, -1, -1}, []pairwise.Verified{pair(0, 1, [2]int32{0, 0})}, MergeOptions{On: true, MinLinks: 2}, []int{0, -1, 1, -1, -1, -1}, MergeStats{}},
		// Track 0 (image 0) links to 1 and 2, both in image 1: the
		// stronger link (two matches, through image 2) merges, the
		// other is refused.
		{"the stronger link wins", []int{0, -1, 1, 2, 2, -1}, []pairwise.Verified{
			pair(0, 1, [2]int32{0, 0}, [2]int32{0, 1}), pair(0, 2, [2]int32{0, 0})}, MergeOptions{On: true},
			[]int{0, -1, 1, 0, 0, -1}, MergeStats{clear.MergeStats{Merges: 1, Refused: 1}}},
		{"a rejected pair links nothing", []int{0, -1, 1, -1, -1, -1}, []pairwise.Verified{{I: 0, J: 1, Model: pairwise.NoModel, Matches: []pairwise.Match{{A: 0, B: 0}}}}, MergeOptions{On: true}, []int{0, -1, 1, -1, -1, -1}, MergeStats{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := slices.Clone(tc.item)
			got, st, err := Merge(context.Background(), views, Tracks{Item: in, Pairs: tc.pairs}, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got.Item, tc.want) || st != tc.st {
				t.Errorf("got %v %+v, want %v %+v", got.Item, st, tc.want, tc.st)
			}
			if !slices.Equal(in, tc.item) {
				t.Error("the input's items changed")
			}
		})
	}
}
