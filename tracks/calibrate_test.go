package tracks

import (
	"math"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

// fundamental is K⁻ᵀ [t]× R K⁻¹ for the camera (f, cx, cy).
func fundamental(f, cx, cy float64, R [9]float64, t [3]float64) [9]float64 {
	Ki, _ := geom.Inverse3([9]float64{f, 0, cx, 0, f, cy, 0, 0, 1})
	tx := [9]float64{0, -t[2], t[1], t[2], 0, -t[0], -t[1], t[0], 0}
	return geom.Mul3(geom.Transpose3(Ki), geom.Mul3(geom.Mul3(tx, R), Ki))
}

func rotY(deg float64) [9]float64 {
	a := deg * math.Pi / 180
	return [9]float64{math.Cos(a), 0, math.Sin(a), 0, 1, 0, -math.Sin(a), 0, math.Cos(a)}
}

func rotX(deg float64) [9]float64 {
	a := deg * math.Pi / 180
	return [9]float64{1, 0, 0, 0, math.Cos(a), -math.Sin(a), 0, math.Sin(a), math.Cos(a)}
}

func TestFocalFromFundamentals(t *testing.T) {
	const cx, cy, side = 767.5, 511.5, 1536
	motions := []struct {
		R [9]float64
		t [3]float64
	}{
		{rotY(10), [3]float64{1, 0.1, 0.2}},
		{geom.Mul3(rotY(-15), rotX(5)), [3]float64{-1, 0.2, 0.3}},
		{rotX(8), [3]float64{0.1, 1, 0.1}},
		{geom.Mul3(rotY(20), rotX(-3)), [3]float64{1, -0.3, 0.5}},
	}
	for _, tc := range []struct {
		name string
		f    float64
		bad  int // pairs replaced by a matrix of no camera
	}{
		{"f 1380", 1380, 0},
		{"f 700", 700, 0},
		{"f 3000", 3000, 0},
		{"f 1380, one wrong pair of five", 1380, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var fs [][9]float64
			for _, m := range motions {
				fs = append(fs, fundamental(tc.f, cx, cy, m.R, m.t))
			}
			for range tc.bad {
				fs = append(fs, [9]float64{0, 1e-6, -1e-3, 2e-6, 0, 3e-3, 1e-3, -2e-3, 1})
			}
			got := focalFromFundamentals(fs, cx, cy, side)
			if math.Abs(got-tc.f) > 0.02*tc.f {
				t.Errorf("focal %.1f, want %.1f", got, tc.f)
			}
		})
	}
	if got := focalFromFundamentals(nil, cx, cy, side); math.Abs(got-1.2*side) > 1e-9 {
		t.Errorf("no pairs: %v, want COLMAP's prior %v", got, 1.2*side)
	}
}
