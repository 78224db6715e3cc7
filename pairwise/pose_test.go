package pairwise

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

// TestRelativePose: of E's four decompositions RelativePose returns the
// true rotation and baseline direction, whichever sign E is given with,
// and refuses an unknown camera or a zero matrix.
func TestRelativePose(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cam, e, _, a, b, _, _ := refitScene(40, 0.2, rng)
	// refitScene's true pose: its t1 normalized, its r1.
	trueR := geom.Mul3(rotY(0.2), rodrigues(0.03, 0, 0.02))
	trueT := [3]float64{-1, 0.1, 0.2}
	nt := math.Sqrt(geom.Dot(trueT, trueT))
	for k := range trueT {
		trueT[k] /= nt
	}
	neg := e
	for k := range neg {
		neg[k] = -neg[k]
	}
	for _, c := range []struct {
		name string
		e    [9]float64
		ci   geom.Intrinsics
		ok   bool
	}{
		{"E", e, cam, true},
		{"-E", neg, cam, true},
		{"unknown camera", e, geom.Intrinsics{}, false},
		{"zero", [9]float64{}, cam, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			R, tt, ok := RelativePose(c.e, a, b, c.ci, cam)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			if d := geom.RotationAngle(geom.Mul3(R, geom.Transpose3(trueR))); d > 1e-6 {
				t.Errorf("rotation %.3g° off", d)
			}
			if d := math.Acos(min(1, geom.Dot(tt, trueT))) * 180 / math.Pi; d > 1e-6 {
				t.Errorf("baseline %.3g° off (sign included)", d)
			}
		})
	}
}

// TestNearestRotation: the chordal mean of rotations near one another is
// a rotation near them, and a rotation is its own nearest.
func TestNearestRotation(t *testing.T) {
	r := rodrigues(0.3, -0.2, 0.1)
	got, ok := geom.NearestRotation(r)
	if !ok || geom.RotationAngle(geom.Mul3(got, geom.Transpose3(r))) > 1e-9 {
		t.Fatalf("nearest rotation of a rotation: %v %v", got, ok)
	}
	a, b := geom.Mul3(rodrigues(0.01, 0, 0), r), geom.Mul3(rodrigues(-0.01, 0, 0), r)
	var sum [9]float64
	for k := range sum {
		sum[k] = a[k] + b[k]
	}
	got, ok = geom.NearestRotation(sum)
	if !ok || geom.RotationAngle(geom.Mul3(got, geom.Transpose3(r))) > 1e-9 {
		t.Errorf("mean of two rotations 0.01 rad either side: %.3g° off", geom.RotationAngle(geom.Mul3(got, geom.Transpose3(r))))
	}
	if det := geom.Det3(got); math.Abs(det-1) > 1e-12 {
		t.Errorf("det %v", det)
	}
	if _, ok := geom.NearestRotation([9]float64{}); ok {
		t.Error("zero matrix: ok")
	}
}

// TestFitBaseline: given the true rotation, FitBaseline finds the
// baseline from noisy matches of which a fifth are wrong, counts the
// right ones within the threshold, and leaves out the wrong ones; given a
// rotation 3° off it finds fewer; it refuses a homography pair and a pair
// of four matches. The result is deterministic.
func TestFitBaseline(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	cam, e, _, a, b, _, _ := refitScene(50, 0.3, rng)
	// Ten wrong matches: b moved 8–20 px across.
	for k := 0; k < 10; k++ {
		b[k].X += 8 + 12*rng.Float64()
		b[k].Y -= 8 + 12*rng.Float64()
	}
	trueR := geom.Mul3(rotY(0.2), rodrigues(0.03, 0, 0.02))
	v := Verified{I: 0, J: 1, Model: Essential, Matrix: geom.Mul3(geom.Skew([3]float64{0, 1, 0}), trueR)}
	for _, c := range []struct {
		name     string
		v        Verified
		R        [9]float64
		n        int
		ok       bool
		min, max int
	}{
		{"true rotation", v, trueR, 50, true, 40, 40},
		{"rotation 3° off", v, geom.Mul3(rodrigues(0, 0.052, 0), trueR), 50, true, 0, 39},
		{"homography", Verified{Model: Homography}, trueR, 50, false, 0, 0},
		{"four matches", v, trueR, 4, false, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, in, ok := FitBaseline(c.v, c.R, a[:c.n], b[:c.n], cam, cam, 1.5)
			if ok != c.ok {
				t.Fatalf("ok = %v, want %v", ok, c.ok)
			}
			if !ok {
				return
			}
			if in < c.min || in > c.max {
				t.Errorf("%d matches within 1.5 px, want %d–%d", in, c.min, c.max)
			}
			wrong := 0
			for k := 0; k < 10; k++ {
				if SampsonError(got.F, a[k], b[k]) <= 1.5 {
					wrong++
				}
			}
			if c.name == "true rotation" {
				if wrong > 0 {
					t.Errorf("%d wrong matches fit the new model", wrong)
				}
				if d := rmsSampson(got.F, a[10:], b[10:]); d > 0.6 {
					t.Errorf("right matches %.3f px RMS off the new model", d)
				}
				te := geom.Mul3(got.Matrix, geom.Transpose3(trueR)) // ∝ [t]×
				tt := [3]float64{te[7], te[2], te[3]}
				_, et, _ := decomposeEssential(e)
				if d := math.Acos(min(1, math.Abs(geom.Dot(tt, et))/math.Sqrt(geom.Dot(tt, tt)))) * 180 / math.Pi; d > 1 {
					t.Errorf("baseline %.2f° off", d)
				}
			}
			again, in2, _ := FitBaseline(c.v, c.R, a[:c.n], b[:c.n], cam, cam, 1.5)
			if again.Matrix != got.Matrix || again.F != got.F || in2 != in {
				t.Error("not deterministic")
			}
		})
	}
}

// rotY is the rotation by a radians about y.
func rotY(a float64) [9]float64 {
	c, s := math.Cos(a), math.Sin(a)
	return [9]float64{c, 0, s, 0, 1, 0, -s, 0, c}
}
