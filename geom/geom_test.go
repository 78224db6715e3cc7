package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

func rotation(axis [3]float64, deg float64) [9]float64 {
	n := Norm(axis)
	k := [3]float64{axis[0] / n, axis[1] / n, axis[2] / n}
	s, c := math.Sin(deg*math.Pi/180), math.Cos(deg*math.Pi/180)
	K := Skew(k)
	KK := Mul3(K, K)
	var R [9]float64
	for i := range R {
		R[i] = s*K[i] + (1-c)*KK[i]
	}
	R[0], R[4], R[8] = R[0]+1, R[4]+1, R[8]+1
	return R
}

func near(a, b [9]float64, tol float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > tol {
			return false
		}
	}
	return true
}

func TestMatrices(t *testing.T) {
	id := [9]float64{1, 0, 0, 0, 1, 0, 0, 0, 1}
	for _, tc := range []struct {
		name     string
		m        [9]float64
		det      float64
		singular bool
	}{
		{"identity", id, 1, false},
		{"diagonal", [9]float64{2, 0, 0, 0, 3, 0, 0, 0, 4}, 24, false},
		{"general", [9]float64{2, 1, 0, 1, 3, 1, 0, 1, 4}, 18, false},
		{"rotation", rotation([3]float64{1, 2, 3}, 40), 1, false},
		{"rank 2", [9]float64{1, 2, 3, 2, 4, 6, 1, 0, 1}, 0, true},
		{"zero", [9]float64{}, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := Det3(tc.m); math.Abs(d-tc.det) > 1e-12 {
				t.Errorf("Det3 = %v, want %v", d, tc.det)
			}
			inv, ok := Inverse3(tc.m)
			if ok == tc.singular {
				t.Fatalf("Inverse3 ok = %v", ok)
			}
			if ok && !near(Mul3(tc.m, inv), id, 1e-12) {
				t.Errorf("m · Inverse3(m) = %v", Mul3(tc.m, inv))
			}
			if Transpose3(Transpose3(tc.m)) != tc.m {
				t.Error("Transpose3 twice is not the identity")
			}
			x := [3]float64{0.3, -1.2, 2}
			y, yt := MulVec3(tc.m, x), MulTVec3(Transpose3(tc.m), x)
			if y != yt {
				t.Errorf("MulVec3 %v, MulTVec3 of the transpose %v", y, yt)
			}
		})
	}
}

func TestSkewAndCross(t *testing.T) {
	a, b := [3]float64{1, 2, 3}, [3]float64{-2, 0.5, 4}
	if MulVec3(Skew(a), b) != Cross(a, b) {
		t.Errorf("Skew(a)·b = %v, a × b = %v", MulVec3(Skew(a), b), Cross(a, b))
	}
	if d := Dot(Cross(a, b), a); math.Abs(d) > 1e-12 {
		t.Errorf("(a × b) · a = %v", d)
	}
	if n := Norm(Sub(a, a)); n != 0 {
		t.Errorf("|a − a| = %v", n)
	}
}

func TestRotations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, deg := range []float64{0, 1e-7, 0.5, 30, 90, 179} {
		R := rotation([3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}, deg)
		if got := RotationAngle(R); math.Abs(got-deg) > 1e-9 {
			t.Errorf("RotationAngle = %v, want %v", got, deg)
		}
		if math.Abs(Det3(R)-1) > 1e-12 {
			t.Errorf("det %v", Det3(R))
		}
		// A noisy, scaled copy has R as its nearest rotation.
		m := R
		for i := range m {
			m[i] = 3*m[i] + 1e-9*rng.NormFloat64()
		}
		got, ok := NearestRotation(m)
		if !ok || !near(got, R, 1e-8) {
			t.Errorf("%v°: NearestRotation = %v, %v, want %v", deg, got, ok, R)
		}
	}
	if _, ok := NearestRotation([9]float64{}); ok {
		t.Error("NearestRotation of zero: ok")
	}
	U, s, V, ok := SVD3([9]float64{2, 1, 0, 1, 3, 1, 0, 1, 4})
	if !ok || Det3(U) < 0 || Det3(V) < 0 || s[0] < s[1] || s[1] < s[2] {
		t.Errorf("SVD3: ok %v, det U %v, det V %v, s %v", ok, Det3(U), Det3(V), s)
	}
}

// TestGrid compares Near and AlongLine with a scan of every point: each
// point within the radius must be visited, and visited once.
func TestGrid(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name   string
		n      int
		spread float64
		cell   float64
		flat   bool // every point on the line y = 0
	}{
		{"dense", 2000, 500, 4, false},
		{"sparse, far-flung", 50, 1e6, 2, false},
		{"far-flung on a line", 50, 1e12, 1, true},
		{"beyond an int's reach", 40, 1e300, 1, false},
		{"one point", 1, 10, 1, false},
		{"none", 0, 10, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pts := make([]Point, tc.n)
			for k := range pts {
				pts[k] = Point{X: rng.Float64() * tc.spread, Y: rng.Float64() * tc.spread}
				if tc.flat {
					pts[k].Y = 0
				}
			}
			g := NewGrid(pts, tc.cell)
			if cells := g.nx * g.ny; cells > 3*(4*tc.n+64)+3 {
				t.Fatalf("%d cells for %d points", cells, tc.n)
			}
			for q := 0; q < 50; q++ {
				x, y, r := rng.Float64()*tc.spread, rng.Float64()*tc.spread, tc.cell*(0.5+2*rng.Float64())
				seen := map[int32]int{}
				g.Near(x, y, r, func(k int32) { seen[k]++ })
				l := [3]float64{rng.NormFloat64(), rng.NormFloat64(), 0}
				l[2] = -(l[0]*x + l[1]*y)
				onLine := map[int32]int{}
				g.AlongLine(l, r, func(k int32) { onLine[k]++ })
				for k, p := range pts {
					if math.Hypot(p.X-x, p.Y-y) <= r && seen[int32(k)] != 1 {
						t.Fatalf("Near(%v, %v, %v) visited point %d %v %d times", x, y, r, k, p, seen[int32(k)])
					}
					if math.Abs(l[0]*p.X+l[1]*p.Y+l[2])/math.Hypot(l[0], l[1]) <= r && onLine[int32(k)] != 1 {
						t.Fatalf("AlongLine visited point %d %d times", k, onLine[int32(k)])
					}
				}
			}
			for k, p := range pts { // each point is found at its own place
				n := 0
				g.Near(p.X, p.Y, tc.cell, func(j int32) {
					if j == int32(k) {
						n++
					}
				})
				if n != 1 {
					t.Fatalf("Near at point %d %v visited it %d times", k, p, n)
				}
			}
			g.Near(math.NaN(), 0, 1, func(int32) { t.Fatal("Near(NaN) visited a point") })
		})
	}
}
