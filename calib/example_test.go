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
	truth := Camera{Focal: 1380, Cx: 760, Cy: 504}
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
