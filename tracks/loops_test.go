package tracks

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// loopScene is views of 60 points from cameras on an arc (each turned
// towards the points), every pair verified with its true essential
// matrix, and each pair's matches (a, b) with 0.2 px of noise. The pair
// (0, bad) gets an essential matrix whose rotation is turned by 5°.
func loopScene(views, bad int) ([]pairwise.Verified, map[int][]geom.Point, map[int][]geom.Point, map[[2]int]int, geom.Intrinsics, [][9]float64, [][3]float64) {
	rng := rand.New(rand.NewPCG(11, 12))
	cam := geom.Intrinsics{Fx: 800, Fy: 800, Cx: 640, Cy: 480}
	rots := make([][9]float64, views)
	ts := make([][3]float64, views)
	for v := range views {
		yaw := -0.15 * float64(v)
		c, s := math.Cos(yaw), math.Sin(yaw)
		rots[v] = [9]float64{c, 0, s, 0, 1, 0, -s, 0, c} // world to camera
		centre := [3]float64{1.5 * float64(v), 0.1 * float64(v%2), 0}
		for r := range 3 {
			ts[v][r] = -(rots[v][3*r]*centre[0] + rots[v][3*r+1]*centre[1] + rots[v][3*r+2]*centre[2])
		}
	}
	var pts [][3]float64
	for range 60 {
		pts = append(pts, [3]float64{3 + rng.Float64()*6 - 3, rng.Float64()*4 - 2, 10 + rng.Float64()*4})
	}
	project := func(v int, x [3]float64) geom.Point {
		var y [3]float64
		for r := range 3 {
			y[r] = rots[v][3*r]*x[0] + rots[v][3*r+1]*x[1] + rots[v][3*r+2]*x[2] + ts[v][r]
		}
		return geom.Point{X: cam.Fx*y[0]/y[2] + cam.Cx + 0.2*rng.NormFloat64(), Y: cam.Fy*y[1]/y[2] + cam.Cy + 0.2*rng.NormFloat64()}
	}
	var pairs []pairwise.Verified
	a, b := map[int][]geom.Point{}, map[int][]geom.Point{}
	pairOf := map[[2]int]int{}
	for i := range views {
		for j := i + 1; j < views; j++ {
			R := geom.Mul3(rots[j], geom.Transpose3(rots[i]))
			var t [3]float64
			for q := range 3 {
				t[q] = ts[j][q] - (R[3*q]*ts[i][0] + R[3*q+1]*ts[i][1] + R[3*q+2]*ts[i][2])
			}
			if i == 0 && j == bad {
				R = geom.Mul3(rodriguesY(5*math.Pi/180), R)
			}
			e := geom.Mul3([9]float64{0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0}, R)
			k := len(pairs)
			kinv := [9]float64{1 / cam.Fx, 0, -cam.Cx / cam.Fx, 0, 1 / cam.Fy, -cam.Cy / cam.Fy, 0, 0, 1}
			f := geom.Mul3(geom.Transpose3(kinv), geom.Mul3(e, kinv))
			pairs = append(pairs, pairwise.Verified{I: i, J: j, Model: pairwise.Essential, Matrix: e, F: f})
			pairOf[[2]int{i, j}] = k
			for _, x := range pts {
				a[k], b[k] = append(a[k], project(i, x)), append(b[k], project(j, x))
			}
		}
	}
	return pairs, a, b, pairOf, cam, rots, ts
}

func rodriguesY(th float64) [9]float64 {
	c, s := math.Cos(th), math.Sin(th)
	return [9]float64{c, 0, s, 0, 1, 0, -s, 0, c}
}

// TestCloseRotationLoops: a pair whose rotation is 5° off is found when
// its triangles' other pairs are confirmed, and only it; its new model
// has the true rotation and fits its (right) matches. With three views
// nothing is confirmed, so nothing changes.
func TestCloseRotationLoops(t *testing.T) {
	for _, c := range []struct {
		name       string
		views, bad int
		tau        float64
		want       []int // fixed pairs, as their index
	}{
		{"five views, (0, 4) off", 5, 4, 2, []int{3}},
		{"five views, none off", 5, -1, 2, nil},
		{"three views, (0, 2) off", 3, 2, 2, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			pairs, a, b, pairOf, cam, rots, _ := loopScene(c.views, c.bad)
			v := &Views{Threshold: 3, Intrinsics: cam}
			before := append([]pairwise.Verified(nil), pairs...)
			fixed, err := closeRotationLoops(context.Background(), v, pairs, a, b, pairOf, c.tau)
			if err != nil {
				t.Fatal(err)
			}
			if len(fixed) != len(c.want) {
				t.Fatalf("fixed %v, want %v", fixed, c.want)
			}
			for _, k := range c.want {
				if !fixed[k] {
					t.Fatalf("fixed %v, want %v", fixed, c.want)
				}
				v := pairs[k]
				R, _, ok := pairwise.RelativePose(v.Matrix, a[k], b[k], cam, cam)
				trueR := geom.Mul3(rots[v.J], geom.Transpose3(rots[v.I]))
				if d := geom.RotationAngle(geom.Mul3(R, geom.Transpose3(trueR))); !ok || d > 0.2 {
					t.Errorf("pair %d-%d: new rotation %.3f° off the truth", v.I, v.J, d)
				}
				off := 0
				for q := range a[k] {
					if pairwise.SampsonError(v.F, a[k][q], b[k][q]) > 1 {
						off++
					}
				}
				if off > 0 {
					t.Errorf("pair %d-%d: %d of %d matches more than 1 px off the new model", v.I, v.J, off, len(a[k]))
				}
			}
			for k := range pairs {
				if !fixed[k] && pairs[k].Matrix != before[k].Matrix {
					t.Errorf("pair %d changed", k)
				}
			}
		})
	}
}
