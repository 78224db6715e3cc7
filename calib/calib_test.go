package calib

import (
	"context"
	"fmt"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

// scene makes views on an arc looking at a box of points, seen by a camera
// cam at w × h with Gaussian pixel noise, and the relative rotations of
// every pair of views (rotNoise degrees off, about a random axis).
func scene(cam SimpleRadial, views, points int, noise, rotNoise float64, seed int64) ([][]Obs, []Rotation) {
	rng := rand.New(rand.NewSource(seed))
	const w, h = 1536, 1024
	R := make([][9]float64, views)
	C := make([][3]float64, views)
	for v := range views {
		// Centres on an arc of radius 10 around the origin, 45° in all,
		// looking at the origin, with a little roll and height.
		a := (float64(v)/float64(views-1) - 0.5) * math.Pi / 4
		C[v] = [3]float64{10 * math.Sin(a), 0.3 * rng.NormFloat64(), -10 * math.Cos(a)}
		// z axis towards the origin.
		zc := [3]float64{-C[v][0], -C[v][1], -C[v][2]}
		zl := geom.Norm(zc)
		zc = [3]float64{zc[0] / zl, zc[1] / zl, zc[2] / zl}
		xc := geom.Cross([3]float64{0, 1, 0}, zc)
		xl := geom.Norm(xc)
		xc = [3]float64{xc[0] / xl, xc[1] / xl, xc[2] / xl}
		yc := geom.Cross(zc, xc)
		base := [9]float64{xc[0], xc[1], xc[2], yc[0], yc[1], yc[2], zc[0], zc[1], zc[2]}
		R[v] = geom.Mul3(expRot([3]float64{0, 0, 0.05 * rng.NormFloat64()}), base)
	}
	m := &model{cam: cam, R: R, C: C}
	var tracks [][]Obs
	for len(tracks) < points {
		X := [3]float64{6 * (rng.Float64() - 0.5), 4 * (rng.Float64() - 0.5), 3 * (rng.Float64() - 0.5)}
		var tr []Obs
		for v := range views {
			if rng.Float64() < 0.3 {
				continue // not detected here
			}
			px, py, z := m.project(v, X)
			if z <= 0 || px < 0 || py < 0 || px > w-1 || py > h-1 {
				continue
			}
			tr = append(tr, Obs{v, px + noise*rng.NormFloat64(), py + noise*rng.NormFloat64()})
		}
		if len(tr) >= 2 {
			tracks = append(tracks, tr)
		}
	}
	var rots []Rotation
	for i := range views {
		for j := i + 1; j < views; j++ {
			Rij := geom.Mul3(R[j], geom.Transpose3(R[i]))
			ax := [3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}
			l := geom.Norm(ax) / (rotNoise * math.Pi / 180)
			Rij = geom.Mul3(expRot([3]float64{ax[0] / l, ax[1] / l, ax[2] / l}), Rij)
			rots = append(rots, Rotation{I: i, J: j, R: Rij, Weight: 100})
		}
	}
	return tracks, rots
}

func TestEstimate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cam    SimpleRadial
		accept bool
		reason string // when not accepted
	}{
		{"offset principal point", SimpleRadial{Focal: 1380, Cx: 760.1, Cy: 503.2, K1: -0.02}, true, ""},
		{"centred principal point", SimpleRadial{Focal: 1380, Cx: 767.5, Cy: 511.5}, false, "not significant"},
		{"far offset", SimpleRadial{Focal: 1380, Cx: 745, Cy: 492}, true, ""},
		{"beyond MaxOffset", SimpleRadial{Focal: 1380, Cx: 680, Cy: 450}, false, "beyond 0.02"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tracks, rots := scene(tc.cam, 9, 3000, 0.3, 0.5, 1)
			res, err := Estimate(context.Background(), 9, tracks, rots, Options{Width: 1536, Height: 1024, Focal: 1.2 * 1536})
			if err != nil {
				t.Fatal(err)
			}
			if res.Registered != 9 {
				t.Fatalf("%d of 9 views placed (%s)", res.Registered, res.Reason)
			}
			if res.Accepted != tc.accept {
				t.Fatalf("accepted %v, want %v: %+v", res.Accepted, tc.accept, res)
			}
			if !tc.accept && !strings.Contains(res.Reason, tc.reason) {
				t.Errorf("reason %q, want %q", res.Reason, tc.reason)
			}
			if tc.accept || tc.reason == "not significant" {
				if math.Abs(res.Camera.Focal-tc.cam.Focal) > 0.01*tc.cam.Focal {
					t.Errorf("focal %.1f, want %.1f", res.Camera.Focal, tc.cam.Focal)
				}
			}
			if tc.accept {
				if d := math.Hypot(res.Camera.Cx-tc.cam.Cx, res.Camera.Cy-tc.cam.Cy); d > 3 {
					t.Errorf("principal point (%.1f, %.1f), %.1f px from the truth (%.1f, %.1f)", res.Camera.Cx, res.Camera.Cy, d, tc.cam.Cx, tc.cam.Cy)
				}
			}
			if res.RMS > 0.5 {
				t.Errorf("RMS %.3f px with 0.3 px noise", res.RMS)
			}
		})
	}
}

func TestEstimateDeterministic(t *testing.T) {
	cam := SimpleRadial{Focal: 1380, Cx: 760, Cy: 503}
	tracks, rots := scene(cam, 6, 1500, 0.3, 0.5, 2)
	o := Options{Width: 1536, Height: 1024}
	a, err := Estimate(context.Background(), 6, tracks, rots, o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Estimate(context.Background(), 6, tracks, rots, o)
	if err != nil {
		t.Fatal(err)
	}
	// The scenes are compared by content, the rest by its printing
	// (Residuals may hold NaN).
	scene := func(s *Scene) string {
		if s == nil {
			return "nil"
		}
		return fmt.Sprint(s.points, s.has, s.local, s.m.cam, s.m.R, s.m.C, s.m.placed)
	}
	if sa, sb := scene(a.Scene), scene(b.Scene); sa != sb || a.Scene == nil {
		t.Errorf("two runs' scenes differ (or none): %.200s\n%.200s", sa, sb)
	}
	a.Scene, b.Scene = nil, nil
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("two runs differ:\n%+v\n%+v", a, b)
	}
}

func TestEstimateNotAccepted(t *testing.T) {
	cam := SimpleRadial{Focal: 1380, Cx: 760, Cy: 503}
	tracks, rots := scene(cam, 6, 1500, 0.3, 0.5, 3)
	o := Options{Width: 1536, Height: 1024}
	for _, tc := range []struct {
		name   string
		views  int
		tracks [][]Obs
		rots   []Rotation
		reason string
	}{
		{"no rotations", 6, tracks, nil, "views joined"},
		{"two views", 6, tracks, rots[:1], "views joined"},
		{"no tracks", 6, nil, rots, "placed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Estimate(context.Background(), tc.views, tc.tracks, tc.rots, o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Accepted || !strings.Contains(res.Reason, tc.reason) {
				t.Errorf("accepted %v, reason %q, want not accepted for %q", res.Accepted, res.Reason, tc.reason)
			}
		})
	}
}

func TestEstimateBadArguments(t *testing.T) {
	ok := Options{Width: 100, Height: 100}
	for _, tc := range []struct {
		name   string
		views  int
		tracks [][]Obs
		rots   []Rotation
		o      Options
	}{
		{"no views", 0, nil, nil, ok},
		{"zero size", 3, nil, nil, Options{}},
		{"NaN focal", 3, nil, nil, Options{Width: 100, Height: 100, Focal: math.NaN()}},
		{"negative threshold", 3, nil, nil, Options{Width: 100, Height: 100, Threshold: -1}},
		{"rotation view out of range", 3, nil, []Rotation{{I: 0, J: 3}}, ok},
		{"rotation of a view with itself", 3, nil, []Rotation{{I: 1, J: 1}}, ok},
		{"track view out of range", 3, [][]Obs{{{View: -1}}}, nil, ok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Estimate(context.Background(), tc.views, tc.tracks, tc.rots, tc.o); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestEstimateCancelled(t *testing.T) {
	tracks, rots := scene(SimpleRadial{Focal: 1380, Cx: 760, Cy: 503}, 6, 1500, 0.3, 0.5, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Estimate(ctx, 6, tracks, rots, Options{Width: 1536, Height: 1024}); err == nil {
		t.Error("no error from a cancelled context")
	}
}

func TestAverageRotations(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	const n = 7
	R := make([][9]float64, n)
	for i := range R {
		R[i] = expRot([3]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
	}
	var edges []edge
	for i := range n {
		for j := i + 1; j < n; j++ {
			Rij := geom.Mul3(R[j], geom.Transpose3(R[i]))
			if i == 0 && j == 3 {
				Rij = geom.Mul3(expRot([3]float64{0.5, 0, 0}), Rij) // one outlier, 29°
			}
			edges = append(edges, edge{i, j, Rij, 1})
		}
	}
	got, ok := averageRotations(n, edges)
	if !ok {
		t.Fatal("not averaged")
	}
	for i := range n {
		want := geom.Mul3(R[i], geom.Transpose3(R[0]))
		if a := geom.RotationAngle(geom.Mul3(got[i], geom.Transpose3(want))); a > 0.5 {
			t.Errorf("view %d: %.2f° off", i, a)
		}
	}
}
