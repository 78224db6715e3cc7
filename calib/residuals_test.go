package calib

import (
	"context"
	"errors"
	"math"
	"math/rand"
	"testing"
)

// withOutliers moves one observation of every tenth track of three or more
// views by dist pixels in a random direction, and returns which.
func withOutliers(tracks [][]Obs, dist float64, seed int64) [][]bool {
	rng := rand.New(rand.NewSource(seed))
	moved := make([][]bool, len(tracks))
	for t, tr := range tracks {
		moved[t] = make([]bool, len(tr))
		if len(tr) < 3 || t%10 != 0 {
			continue
		}
		k := rng.Intn(len(tr))
		a := 2 * math.Pi * rng.Float64()
		tr[k].X += dist * math.Cos(a)
		tr[k].Y += dist * math.Sin(a)
		moved[t][k] = true
	}
	return moved
}

func TestReconstructResiduals(t *testing.T) {
	cam := SimpleRadial{Focal: 1380, Cx: 760.1, Cy: 503.2}
	for _, tc := range []struct {
		name string
		dist float64 // pixels an outlier is moved
		// most wrongly flagged and least caught outliers, fractions,
		// at the 1 px cut
		falseMax, caughtMin float64
	}{
		{"outliers at 2.5 px", 2.5, 0.01, 0.9},
		{"outliers at 10 px", 10, 0.01, 0.99},
		{"none", 0, 0.01, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tracks, rots := scene(cam, 8, 3000, 0.2, 0.5, 5)
			moved := withOutliers(tracks, tc.dist, 6)
			if tc.dist == 0 {
				for _, m := range moved {
					clear(m)
				}
			}
			fit, err := Reconstruct(context.Background(), 8, tracks, rots, cam, Options{Width: 1536, Height: 1024})
			if err != nil {
				t.Fatal(err)
			}
			if fit.Registered != 8 || len(fit.Residuals) != len(tracks) {
				t.Fatalf("%d of 8 views placed, %d residual tracks of %d (%s)", fit.Registered, len(fit.Residuals), len(tracks), fit.Reason)
			}
			var good, bad, flaggedGood, caught, nan int
			for ti, tr := range tracks {
				if len(fit.Residuals[ti]) != len(tr) {
					t.Fatalf("track %d: %d residuals for %d observations", ti, len(fit.Residuals[ti]), len(tr))
				}
				for k, e := range fit.Residuals[ti] {
					if math.IsNaN(e) {
						nan++
						continue
					}
					if moved[ti][k] {
						bad++
						if e > 1 {
							caught++
						}
					} else {
						good++
						if e > 1 {
							flaggedGood++
						}
					}
				}
			}
			if nan > good/100 {
				t.Errorf("%d observations without a residual, of %d", nan, good+bad+nan)
			}
			if f := float64(flaggedGood) / float64(good); f > tc.falseMax {
				t.Errorf("%d of %d right observations beyond 1 px (%.3f)", flaggedGood, good, f)
			}
			if bad > 0 {
				if f := float64(caught) / float64(bad); f < tc.caughtMin {
					t.Errorf("%d of %d moved observations beyond 1 px (%.3f)", caught, bad, f)
				}
			}
		})
	}
}

func TestReconstructBadArguments(t *testing.T) {
	tracks, rots := scene(SimpleRadial{Focal: 1380, Cx: 760, Cy: 503}, 4, 200, 0.3, 0.5, 1)
	ctx := context.Background()
	o := Options{Width: 1536, Height: 1024}
	for _, tc := range []struct {
		name string
		cam  SimpleRadial
		o    Options
	}{
		{"zero focal", SimpleRadial{Cx: 760, Cy: 503}, o},
		{"NaN principal point", SimpleRadial{Focal: 1380, Cx: math.NaN(), Cy: 503}, o},
		{"no size", SimpleRadial{Focal: 1380, Cx: 760, Cy: 503}, Options{}},
	} {
		if _, err := Reconstruct(ctx, 4, tracks, rots, tc.cam, tc.o); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Reconstruct(cctx, 4, tracks, rots, SimpleRadial{Focal: 1380, Cx: 760, Cy: 503}, o); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	fit, err := Reconstruct(ctx, 4, tracks, nil, SimpleRadial{Focal: 1380, Cx: 760, Cy: 503}, o)
	if err != nil || fit.Registered != 0 || fit.Residuals != nil || fit.Reason == "" {
		t.Errorf("no rotations: %+v, %v", fit, err)
	}
}

// TestScene: a reconstruction's Scene projects each track's point to
// where its Residuals say, into every placed view, and answers no for a
// view out of range, a track out of range and a point behind a camera.
func TestScene(t *testing.T) {
	cam := SimpleRadial{Focal: 1380, Cx: 760.1, Cy: 503.2}
	tracks, rots := scene(cam, 6, 500, 0.2, 0.5, 9)
	fit, err := Reconstruct(context.Background(), 6, tracks, rots, cam, Options{Width: 1536, Height: 1024})
	if err != nil {
		t.Fatal(err)
	}
	sc := fit.Scene
	if fit.Registered != 6 || sc == nil {
		t.Fatalf("%d of 6 views placed (%s)", fit.Registered, fit.Reason)
	}
	points := 0
	for ti, tr := range tracks {
		X, ok := sc.Point(ti)
		if !ok {
			continue
		}
		points++
		for k, ob := range tr {
			x, y, ok := sc.Project(ob.View, X)
			if !ok {
				t.Fatalf("track %d: view %d does not see its point", ti, ob.View)
			}
			if e := math.Hypot(x-ob.X, y-ob.Y); math.Abs(e-fit.Residuals[ti][k]) > 1e-9 {
				t.Fatalf("track %d, view %d: projection %.6f px off, residual %.6f", ti, ob.View, e, fit.Residuals[ti][k])
			}
		}
	}
	if points < len(tracks)*9/10 {
		t.Errorf("%d of %d tracks have a point", points, len(tracks))
	}
	X, _ := sc.Point(0)
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"view -1", sc.Placed(-1)},
		{"view 6", sc.Placed(6)},
		{"behind", func() bool {
			// The point mirrored through view 0's centre is behind it.
			C := sc.m.C[sc.local[0]]
			_, _, ok := sc.Project(0, [3]float64{2*C[0] - X[0], 2*C[1] - X[1], 2*C[2] - X[2]})
			return ok
		}()},
		{"track -1", func() bool { _, ok := sc.Point(-1); return ok }()},
		{"track past the end", func() bool { _, ok := sc.Point(len(tracks)); return ok }()},
	} {
		if tc.ok {
			t.Errorf("%s: ok", tc.name)
		}
	}
}
