package geom_test

import (
	"fmt"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/geom"
)

// ExampleGrid finds the keypoints within 2 px of a position: Near visits
// the cells around it, and the caller checks the distance.
func ExampleGrid() {
	pts := []geom.Point{{X: 10, Y: 10}, {X: 11, Y: 10.5}, {X: 40, Y: 12}, {X: 10, Y: 30}}
	g := geom.NewGrid(pts, 2)
	var near []int32
	g.Near(10.5, 10.5, 2, func(k int32) {
		if math.Hypot(pts[k].X-10.5, pts[k].Y-10.5) <= 2 {
			near = append(near, k)
		}
	})
	slices.Sort(near)
	fmt.Println(near)
	// Output: [0 1]
}

// ExampleRotationAngle composes two rotations about the same axis.
func ExampleRotationAngle() {
	rz := func(deg float64) [9]float64 {
		c, s := math.Cos(deg*math.Pi/180), math.Sin(deg*math.Pi/180)
		return [9]float64{c, -s, 0, s, c, 0, 0, 0, 1}
	}
	fmt.Printf("%.6f°\n", geom.RotationAngle(geom.Mul3(rz(30), rz(15))))
	// Output: 45.000000°
}
