package tracks

import (
	"testing"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/refine"
)

// TestApplyRefinement: moved observations take their refined positions
// in the new Keypoints (the input's untouched); a completion's observation whose patch did
// not align goes back to CLEAR's item and is counted; refused verified
// observations, and tentative ones refused only for want of pixels (a
// border, a flat patch), stay in their tracks where they were.
func TestApplyRefinement(t *testing.T) {
	kps := func(n int) []features.Keypoint {
		k := make([]features.Keypoint, n)
		for i := range k {
			k[i] = features.Keypoint{X: float32(10 * i), Y: 5, Size: 4}
		}
		return k
	}
	// Two images of 4 keypoints. CLEAR: track 0 = {0:0, 1:0}, track 1 =
	// {0:1, 1:1}, the rest singletons (items 2..5). Completion added 0:2
	// to track 0 and 1:2 to track 1, and 0:3 to track 1.
	clearItem := []int{0, 1, 2, 3, 0, 1, 4, 5}
	item := []int{0, 1, 0, 1, 0, 1, 1, 5}
	for _, tc := range []struct {
		name       string
		errs       [3]error // of the tentative 0:2, 1:2, 0:3
		wantItem   []int
		wantUncon  int
		wantMovedX [2][4]float32
	}{
		{"all aligned", [3]error{nil, nil, nil}, item, 0,
			[2][4]float32{{0.5, 10, 20.5, 30.5}, {0, 10, 20.5, 30}}},
		{"two refused", [3]error{refine.ErrLow, refine.ErrFar, refine.ErrBorder}, []int{0, 1, 2, 1, 0, 1, 4, 5}, 2,
			[2][4]float32{{0.5, 10, 20, 30}, {0, 10, 20, 30}}},
		{"diverged", [3]error{refine.ErrDiverged, refine.ErrFlat, nil}, []int{0, 1, 2, 1, 0, 1, 1, 5}, 1,
			[2][4]float32{{0.5, 10, 20, 30.5}, {0, 10, 20, 30}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sets := []*features.Set{{Image: "a", Keypoints: kps(4)}, {Image: "b", Keypoints: kps(4)}}
			in := Tracks{Item: append([]int(nil), item...), Solved: clearItem, Keypoints: sets}
			ob := func(i, k int, tentative bool, err error) refine.Observation {
				x := float64(10 * k)
				if err == nil {
					x += 0.5 // where refinement put it
				}
				return refine.Observation{Image: i, Keypoint: k, Frame: refine.Frame{X: x, Y: 5}, Tentative: tentative, Err: err}
			}
			tracks := [][]refine.Observation{
				{ob(0, 0, false, nil), {Image: 1, Keypoint: 0, Frame: refine.Frame{X: 0, Y: 5}}, ob(0, 2, true, tc.errs[0])},
				{{Image: 0, Keypoint: 1, Frame: refine.Frame{X: 10, Y: 5}}, ob(1, 1, false, refine.ErrLow), ob(1, 2, true, tc.errs[1]), ob(0, 3, true, tc.errs[2])},
			}
			out, unconfirmed := applyRefinement(in, tracks, []int{0, 4, 8})
			for g := range out.Item {
				if out.Item[g] != tc.wantItem[g] || in.Item[g] != item[g] {
					t.Fatalf("Item %v, want %v; input %v", out.Item, tc.wantItem, in.Item)
				}
			}
			if unconfirmed != tc.wantUncon {
				t.Errorf("Unconfirmed %d, want %d", unconfirmed, tc.wantUncon)
			}
			for i := range 2 {
				for k := range 4 {
					if x := out.Keypoints[i].Keypoints[k].X; x != tc.wantMovedX[i][k] {
						t.Errorf("refined keypoint %d:%d at x = %v, want %v", i, k, x, tc.wantMovedX[i][k])
					}
					if x := sets[i].Keypoints[k].X; x != float32(10*k) {
						t.Errorf("extracted keypoint %d:%d moved to x = %v", i, k, x)
					}
				}
			}
		})
	}
}
