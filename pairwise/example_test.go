package pairwise_test

import (
	"fmt"
	"math"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Two cameras (focal 1000 px, principal point 500, 500) one unit apart
// along x see ten points; the verified essential matrix is a little off
// (its baseline tilted by 0.2). Refit moves it back onto the matches.
func ExampleRefit() {
	cam := geom.Intrinsics{Fx: 1000, Fy: 1000, Cx: 500, Cy: 500}
	var a, b []geom.Point
	for k := range 10 {
		x, y, z := float64(k%5)-2, float64(k/5)-0.5, 6+float64(k%3)
		a = append(a, geom.Point{X: 1000*x/z + 500, Y: 1000*y/z + 500})
		b = append(b, geom.Point{X: 1000*(x-1)/z + 500, Y: 1000*y/z + 500})
	}
	e := [9]float64{0, -0.2, 0, 0.2, 0, 1, 0, -1, 0} // [t]× with t = (−1, 0, 0.2)
	v := pairwise.Verified{Model: pairwise.Essential, Matrix: e}
	worst := func(v pairwise.Verified) float64 {
		f := geom.Mul3(geom.Transpose3(kinvOf(cam)), geom.Mul3(v.Matrix, kinvOf(cam)))
		w := 0.0
		for k := range a {
			w = max(w, pairwise.SampsonError(f, a[k], b[k]))
		}
		return w
	}
	fitted, ok := pairwise.Refit(v, a, b, cam, cam)
	fmt.Printf("refitted %v: worst Sampson distance %.1f px before, %.4f px after\n", ok, worst(v), worst(fitted))
	// Output:
	// refitted true: worst Sampson distance 2.1 px before, 0.0000 px after
}

func kinvOf(c geom.Intrinsics) [9]float64 {
	return [9]float64{1 / c.Fx, 0, -c.Cx / c.Fx, 0, 1 / c.Fy, -c.Cy / c.Fy, 0, 0, 1}
}

// Two cameras (focal 1000 px, principal point 500, 500): the second 1 m
// to the right of the first and turned 5° about the vertical axis. Of
// the essential matrix's four decompositions, RelativePose returns the one
// that puts the points in front of both cameras; FitBaseline recovers the
// baseline from the matches with the rotation held.
func ExampleRelativePose() {
	cam := geom.Intrinsics{Fx: 1000, Fy: 1000, Cx: 500, Cy: 500}
	th := 5 * math.Pi / 180
	R := [9]float64{math.Cos(th), 0, math.Sin(th), 0, 1, 0, -math.Sin(th), 0, math.Cos(th)} // X_J = R X_I + t
	t := [3]float64{-1, 0, 0}
	var a, b []geom.Point
	for _, x := range [][3]float64{{0, 0, 6}, {1, 1, 7}, {-1, 0.5, 5}, {0.5, -1, 8}, {-0.5, -0.5, 6}, {1.5, 0.2, 9}, {0.3, 0.8, 5.5}, {-1.2, -0.3, 7.5}} {
		y := [3]float64{R[0]*x[0] + R[1]*x[1] + R[2]*x[2] + t[0], R[3]*x[0] + R[4]*x[1] + R[5]*x[2] + t[1], R[6]*x[0] + R[7]*x[1] + R[8]*x[2] + t[2]}
		a = append(a, geom.Point{X: 1000*x[0]/x[2] + 500, Y: 1000*x[1]/x[2] + 500})
		b = append(b, geom.Point{X: 1000*y[0]/y[2] + 500, Y: 1000*y[1]/y[2] + 500})
	}
	e := geom.Mul3([9]float64{0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0}, R)
	gotR, gotT, ok := pairwise.RelativePose(e, a, b, cam, cam)
	r2 := func(x float64) float64 { return math.Round(x*100) / 100 } // no "-0.00"
	fmt.Printf("ok %v, rotation %.1f°, %.4f° off; baseline (%.2f, %.2f, %.2f)\n", ok,
		geom.RotationAngle(gotR), geom.RotationAngle(geom.Mul3(gotR, geom.Transpose3(R))), r2(gotT[0])+0, r2(gotT[1])+0, r2(gotT[2])+0)
	v := pairwise.Verified{I: 0, J: 1, Model: pairwise.Essential}
	_, in, ok := pairwise.FitBaseline(v, R, a, b, cam, cam, 1)
	fmt.Printf("ok %v, %d of %d matches fit the refitted baseline\n", ok, in, len(a))
	// Output:
	// ok true, rotation 5.0°, 0.0000° off; baseline (-1.00, 0.00, 0.00)
	// ok true, 8 of 8 matches fit the refitted baseline
}
