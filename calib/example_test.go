package calib

import (
	"context"
	"fmt"
	"math"
)

// Estimate on nine views of a synthetic scene, seen by a camera whose
// principal point is 10.6 px off the centre of its 1536 × 1024 images,
// started from COLMAP's prior focal length (1.2 × 1536) and the centre.
// The relative rotations are 0.5° off the truth, the pixels 0.3 px.
func ExampleEstimate() {
	truth := SimpleRadial{Focal: 1380, Cx: 760, Cy: 504}
	tracks, rots := scene(truth, 9, 2000, 0.3, 0.5, 7)
	res, err := Estimate(context.Background(), 9, tracks, rots, Options{Width: 1536, Height: 1024})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%d of %d views placed, accepted %v\n", res.Registered, res.Views, res.Accepted)
	fmt.Printf("principal point within 3 px of the truth: %v\n", math.Hypot(res.Camera.Cx-truth.Cx, res.Camera.Cy-truth.Cy) < 3)
	fmt.Printf("focal length within 1%%: %v\n", math.Abs(res.Camera.Focal-truth.Focal) < 0.01*truth.Focal)
	// Output:
	// 9 of 9 views placed, accepted true
	// principal point within 3 px of the truth: true
	// focal length within 1%: true
}

// Reconstruct with the camera known, on eight views of a synthetic scene
// in which one observation of every tenth track of three or more views was
// moved 3 px: the residuals single out the moved observations.
func ExampleReconstruct() {
	cam := SimpleRadial{Focal: 1380, Cx: 760, Cy: 504}
	tracks, rots := scene(cam, 8, 2000, 0.2, 0.5, 3)
	moved := withOutliers(tracks, 3, 4)
	fit, err := Reconstruct(context.Background(), 8, tracks, rots, cam, Options{Width: 1536, Height: 1024})
	if err != nil {
		fmt.Println(err)
		return
	}
	var right, wrong, rightOut, wrongOut int
	for t := range tracks {
		for k, e := range fit.Residuals[t] {
			switch {
			case moved[t][k]:
				wrong++
				if e > 1 {
					wrongOut++
				}
			case !math.IsNaN(e):
				right++
				if e > 1 {
					rightOut++
				}
			}
		}
	}
	fmt.Printf("%d of %d views placed\n", fit.Registered, fit.Views)
	fmt.Printf("moved observations beyond 1 px: more than 95%%: %v\n", wrongOut*100 > 95*wrong)
	fmt.Printf("right observations beyond 1 px: under 1%%: %v\n", rightOut*100 < right)
	// The scene projects a track's point into any placed view, also one
	// the track misses: where to look for its keypoint there.
	// (Track 1: every tenth track, 0 among them, has a moved observation.)
	X, ok := fit.Scene.Point(1)
	x, y, seen := fit.Scene.Project(tracks[1][0].View, X)
	fmt.Printf("track 1 has a point: %v, its first view sees it within 1 px: %v\n", ok, seen && math.Hypot(x-tracks[1][0].X, y-tracks[1][0].Y) < 1)
	// Output:
	// 8 of 8 views placed
	// moved observations beyond 1 px: more than 95%: true
	// right observations beyond 1 px: under 1%: true
	// track 1 has a point: true, its first view sees it within 1 px: true
}
