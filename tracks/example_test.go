package tracks_test

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/tracks"
)

// Three cameras (focal 1000 px, principal point 500, 500) at (0,0,0),
// (1,0,0) and (0,1,0), looking down +z, see the point (0.2, 0.3, 5). A
// track holds it in views 0 and 1; view 2 has a keypoint where the two
// epipolar lines cross, with the same descriptor, and one elsewhere.
// Complete adds the first to the track and leaves its input as it was.
func ExampleComplete() {
	k := [9]float64{1000, 0, 500, 0, 1000, 500, 0, 0, 1}
	kinv, _ := geom.Inverse3(k)
	centre := [][3]float64{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}
	fund := func(a, c int) [9]float64 { // x_cᵀ F x_a = 0 for cameras that only moved
		t := [3]float64{centre[a][0] - centre[c][0], centre[a][1] - centre[c][1], centre[a][2] - centre[c][2]}
		return geom.Mul3(geom.Transpose3(kinv), geom.Mul3(geom.Skew(t), kinv))
	}
	set := func(desc []float32, kps ...features.Keypoint) *features.Set {
		s := &features.Set{Keypoints: kps}
		for _, d := range desc {
			row := make([]float32, features.DescSize)
			row[0] = d
			s.Desc = append(s.Desc, row...)
		}
		return s
	}
	views := &tracks.Views{Threshold: 3, Sets: []*features.Set{
		set([]float32{10}, features.Keypoint{X: 540, Y: 560}),
		set([]float32{12}, features.Keypoint{X: 340, Y: 560}),
		set([]float32{250, 11}, features.Keypoint{X: 100, Y: 100}, features.Keypoint{X: 540, Y: 360}),
	}}
	many := make([]pairwise.Match, 50) // pairs of 30 matches or more give lines
	var pairs []pairwise.Verified
	for _, p := range [][2]int{{0, 1}, {0, 2}, {1, 2}} {
		pairs = append(pairs, pairwise.Verified{I: p[0], J: p[1], Model: pairwise.Fundamental, F: fund(p[0], p[1]), Matches: many})
	}
	item := []int{0, 0, -1, -1} // observations numbered image by image
	in := tracks.Tracks{Item: item, Solved: item, Keypoints: views.Sets, Pairs: pairs}
	out, added, err := tracks.Complete(context.Background(), views, in, tracks.CompleteOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println(out.Item, added, in.Item)
	// Output: [0 0 -1 0] 1 [0 0 -1 -1]
}

// The stages run as the pipeline runs them: each on the previous one's
// tracks, each saying what it did. With every stage off but -min-track
// 3, only the track of three observations stays.
func ExampleOptions_Stages() {
	views := &tracks.Views{Sets: []*features.Set{
		{Keypoints: make([]features.Keypoint, 2)}, {Keypoints: make([]features.Keypoint, 2)}, {Keypoints: make([]features.Keypoint, 1)},
	}}
	t := tracks.Tracks{Item: []int{0, 1, 0, 1, 0}, Keypoints: views.Sets}
	o := tracks.AllOff()
	o.MinTrack.Min = 3
	for _, stage := range o.Stages() {
		var st tracks.Stats
		var err error
		if t, st, err = stage.Run(context.Background(), views, t); err != nil {
			panic(err)
		}
		if mt, ok := st.(tracks.MinTrackStats); ok {
			fmt.Printf("%s: %d track, %d observations out\n", stage.Name(), mt.Tracks, mt.Observations)
		}
	}
	fmt.Println(t.Item)
	// Output:
	// min-track: 1 track, 2 observations out
	// [0 -1 0 -1 0]
}
