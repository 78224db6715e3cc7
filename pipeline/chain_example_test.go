package pipeline_test

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

// The stages one by one, each taking the previous one's value: a Scene of
// three images whose four keypoints are seen in all three, the pairs, CLEAR
// and the track stages (none in the paper's protocol).
func ExampleTrack() {
	var images []pipeline.Image
	var sets []*features.Set
	for i := 0; i < 3; i++ {
		s := &features.Set{Image: fmt.Sprint("view", i), Width: 64, Height: 64}
		for k := 0; k < 4; k++ {
			s.Keypoints = append(s.Keypoints, features.Keypoint{X: float32(10*k + i), Y: 5, Size: 2})
			d := make([]float32, features.DescSize)
			d[30*k], d[30*k+1] = 100, float32(i) // keypoint k looks alike in every view
			s.Desc = append(s.Desc, d...)
		}
		images, sets = append(images, pipeline.Image{Name: s.Image}), append(sets, s)
	}
	ctx := context.Background()
	opts := pipeline.PaperOptions()
	opts.Matching.Matcher = pairwise.BruteForce{}

	scene, err := pipeline.NewScene(images, sets, 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := opts.PairStage().Run(ctx, opts.Env, scene)
	if err != nil {
		fmt.Println(err)
		return
	}
	sol, err := opts.Solve.Run(ctx, opts.Env, scene, m)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := pipeline.Track(ctx, opts.Env, scene, m, sol, opts.Tracks.Stages())
	if err != nil {
		fmt.Println(err)
		return
	}
	size := map[int]int{}
	for _, it := range res.Item {
		size[it]++
	}
	fmt.Printf("%d pairs matched, CLEAR's universe %d, %d tracks of %d views\n", len(m.Matches), sol.Clear.UniverseSize, len(size), size[res.Item[0]])
	// Output:
	// 3 pairs matched, CLEAR's universe 4, 4 tracks of 3 views
}
