package eval_test

import (
	"fmt"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/geom"
)

// ExampleScoreTracks scores the track three views' matches chain into:
// the point (0, 0, 10) seen by three cameras 1 m apart, its keypoint in
// the third view 4.5 px off. Triangulation spreads that over the three
// (3 px is left in the third view, 1.5 in the others): the track's worst
// observation is more than 2 px from the point's projection, within 4.
func ExampleScoreTracks() {
	k := [3][3]float64{{1000, 0, 500}, {0, 1000, 400}, {0, 0, 1}}
	id := [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
	var projs [][12]float64
	var points [][]geom.Point
	for i, x := range []float64{-1, 0, 1} {
		p, err := eval.TrueProjection(datasets.Camera{Pose: geom.Pose{R: id, C: [3]float64{x, 0, 0}}, K: k, Width: 1000, Height: 800}, 1000)
		if err != nil {
			fmt.Println(err)
			return
		}
		projs = append(projs, p)
		// (0, 0, 10) projects to (500 - 100 x, 400).
		pt := geom.Point{X: 500 - 100*x, Y: 400}
		if i == 2 {
			pt.Y += 4.5
		}
		points = append(points, []geom.Point{pt})
	}
	stage := eval.StageMatches{Name: "exported", Pairs: map[[2]int][][2]int{{0, 1}: {{0, 0}}, {1, 2}: {{0, 0}}}}
	sc := eval.ScoreTracks([]eval.StageMatches{stage}, points, func(i int) ([12]float64, bool) { return projs[i], true })
	fmt.Printf("%s: %d track, %d within 2 px, %d within 4 px\n", sc[0].Stage, sc[0].Tracks, sc[0].Within2, sc[0].Within4)
	// Output: exported: 1 track, 0 within 2 px, 1 within 4 px
}
