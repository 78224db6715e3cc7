package refine

import (
	"context"
	"errors"
	"image"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// texture is a smooth random image: a sum of blobs, deterministic.
func texture(w, h int, seed uint64, warp func(x, y float64) (float64, float64)) *image.Gray {
	r := rand.New(rand.NewPCG(seed, 1))
	type blob struct{ x, y, s, a float64 }
	bs := make([]blob, 400)
	for k := range bs {
		bs[k] = blob{r.Float64() * 400, r.Float64() * 400, 2 + 4*r.Float64(), 60 * (r.Float64() - 0.5)}
	}
	g := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// the scene point seen at pixel (x, y)
			sx, sy := warp(float64(x), float64(y))
			v := 128.0
			for _, b := range bs {
				dx, dy := sx-b.x, sy-b.y
				if d2 := dx*dx + dy*dy; d2 < 25*b.s*b.s {
					v += b.a * math.Exp(-d2/(2*b.s*b.s))
				}
			}
			g.Pix[y*g.Stride+x] = uint8(max(0, min(255, math.Round(v))))
		}
	}
	return g
}

func TestAlign(t *testing.T) {
	ident := func(x, y float64) (float64, float64) { return x, y }
	ref := NewImage(texture(200, 200, 7, ident))
	cases := []struct {
		name      string
		a         [4]float64 // scene = a·(pixel − c) + c + t, c = (100, 100)
		tx, ty    float64
		angle, sc float64 // the observation's SIFT frame as a detector would give it
		start     float64 // error of the starting position, px
		wantErr   error
		tolerance float64
	}{
		{"shift", [4]float64{1, 0, 0, 1}, 0.37, -0.61, 0, 2, 0.4, nil, 0.02},
		{"rotated 30°", rot(30, 1), 0.2, 0.3, 30, 2, 0.5, nil, 0.03},
		{"scaled 1/1.3", rot(0, 1/1.3), -0.4, 0.1, 0, 2 / 1.3, 0.5, nil, 0.03},
		{"sheared", [4]float64{1.1, 0.15, -0.05, 0.92}, 0.3, 0.3, 0, 2, 0.3, nil, 0.05},
		{"too far to start", [4]float64{1, 0, 0, 1}, 0, 0, 0, 2, 9, nil, 0}, // must not land near
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			warp := func(x, y float64) (float64, float64) {
				x, y = x-100, y-100
				return tc.a[0]*x + tc.a[1]*y + 100 + tc.tx, tc.a[2]*x + tc.a[3]*y + 100 + tc.ty
			}
			im := NewImage(texture(200, 200, 7, warp))
			// The reference observes the scene point (100, 100) at pixel
			// (100, 100); in im it is at the pixel the warp sends there.
			ai := inv2(tc.a)
			px := ai[0]*(-tc.tx) + ai[1]*(-tc.ty) + 100
			py := ai[2]*(-tc.tx) + ai[3]*(-tc.ty) + 100
			tp, err := NewTemplate(ref, Frame{X: 100, Y: 100, Scale: 2}, Options{})
			if err != nil {
				t.Fatal(err)
			}
			x, y, cc, err := tp.Align(im, Frame{X: px + tc.start, Y: py - tc.start/2, Scale: tc.sc, Angle: tc.angle}, Options{})
			if tc.tolerance == 0 {
				if err == nil && math.Hypot(x-px, y-py) < 0.1 {
					t.Fatalf("converged from %v px away: want a refusal", tc.start)
				}
				return
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err %v, want %v", err, tc.wantErr)
			}
			if d := math.Hypot(x-px, y-py); d > tc.tolerance || cc < 0.95 {
				t.Fatalf("at (%.3f, %.3f), want (%.3f, %.3f): off by %.3f px, correlation %.3f", x, y, px, py, d, cc)
			}
		})
	}
}

// rot is the 2×2 map taking an image rotated by deg (pixel coordinates)
// and scaled by s back to the scene.
func rot(deg, s float64) [4]float64 {
	sn, c := math.Sincos(-deg * math.Pi / 180)
	return [4]float64{c / s, -sn / s, sn / s, c / s}
}

func inv2(a [4]float64) [4]float64 {
	d := a[0]*a[3] - a[1]*a[2]
	return [4]float64{a[3] / d, -a[1] / d, -a[2] / d, a[0] / d}
}

func TestTemplateRefusals(t *testing.T) {
	ref := NewImage(texture(60, 60, 3, func(x, y float64) (float64, float64) { return x, y }))
	if _, err := NewTemplate(ref, Frame{X: 5, Y: 30, Scale: 2}, Options{}); err != ErrBorder {
		t.Errorf("near the border: %v, want ErrBorder", err)
	}
	flat := NewImage(image.NewGray(image.Rect(0, 0, 60, 60)))
	if _, err := NewTemplate(flat, Frame{X: 30, Y: 30, Scale: 2}, Options{}); err != ErrFlat {
		t.Errorf("flat: %v, want ErrFlat", err)
	}
	for _, o := range []Options{{RadiusScale: -1}, {MinRadius: 9, MaxRadius: 8}, {MinCorrelation: 1}, {MaxShift: math.NaN()}, {Iterations: -1}, {MaxRadius: 65}} {
		if o.Validate() == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestReference(t *testing.T) {
	for _, tc := range []struct {
		scales    []float64
		images    []int
		tentative []bool
		want      int
	}{
		{[]float64{3, 1, 2}, []int{0, 1, 2}, nil, 2},
		{[]float64{1, 2}, []int{0, 1}, nil, 0},
		{[]float64{2, 2, 2}, []int{5, 1, 3}, nil, 2},
		{[]float64{4, 1, 3, 2}, []int{0, 1, 2, 3}, nil, 3},
		// Tentative observations are never the reference...
		{[]float64{3, 1, 2}, []int{0, 1, 2}, []bool{false, false, true}, 1},
		{[]float64{4, 1, 3, 2}, []int{0, 1, 2, 3}, []bool{false, true, false, false}, 2},
		// ...unless all are.
		{[]float64{3, 1, 2}, []int{0, 1, 2}, []bool{true, true, true}, 2},
	} {
		tr := make([]Observation, len(tc.scales))
		for k := range tr {
			tr[k] = Observation{Image: tc.images[k], Frame: Frame{Scale: tc.scales[k]}}
			if tc.tentative != nil {
				tr[k].Tentative = tc.tentative[k]
			}
		}
		if got := Reference(tr); got != tc.want {
			t.Errorf("scales %v images %v tentative %v: %d, want %d", tc.scales, tc.images, tc.tentative, got, tc.want)
		}
	}
}

func TestTracks(t *testing.T) {
	ident := func(x, y float64) (float64, float64) { return x, y }
	shift := func(x, y float64) (float64, float64) { return x + 0.4, y - 0.3 }
	imgs := []*Image{NewImage(texture(200, 200, 7, ident)), NewImage(texture(200, 200, 7, shift))}
	var loads atomic.Int64 // load runs on several goroutines
	load := func(i int) (*Image, error) { loads.Add(1); return imgs[i], nil }
	// Scene point (100, 100) is at (100, 100) in image 0 and (99.6, 100.3)
	// in image 1; the detector put it at (100.2, 100.1).
	mk := func() [][]Observation {
		return [][]Observation{
			{{Image: 0, Keypoint: 4, Frame: Frame{X: 100, Y: 100, Scale: 2}}, {Image: 1, Keypoint: 9, Frame: Frame{X: 100.2, Y: 100.1, Scale: 2}}},
			{{Image: 1, Keypoint: 1, Frame: Frame{X: 50, Y: 50, Scale: 2}}}, // one view: left alone
			{{Image: 0, Keypoint: 1, Frame: Frame{X: 2, Y: 2, Scale: 2}}, {Image: 1, Keypoint: 2, Frame: Frame{X: 2, Y: 2, Scale: 2}}},
		}
	}
	var want [][]Observation
	spill := t.TempDir()
	for _, run := range []struct {
		workers int
		spill   string
	}{{1, ""}, {3, ""}, {1, spill}, {3, spill}} {
		workers := run.workers
		tr := mk()
		st, err := TracksSpilled(context.Background(), run.spill, 2, tr, load, Options{}, workers, nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.Tracks != 2 || st.Observations != 2 || st.Moved != 1 || st.Border != 1 {
			t.Fatalf("stats %+v", st)
		}
		if f := tr[0][1].Frame; math.Hypot(f.X-99.6, f.Y-100.3) > 0.03 {
			t.Fatalf("moved to (%.3f, %.3f), want (99.6, 100.3)", f.X, f.Y)
		}
		if tr[0][0].Frame.X != 100 || tr[1][0].Frame.X != 50 || tr[2][1].Frame.X != 2 {
			t.Fatalf("moved what it should not: %+v", tr)
		}
		// Err says what happened to each aligned observation; the
		// references and the one-view track keep nil.
		if tr[0][1].Err != nil || tr[2][1].Err != ErrBorder || tr[0][0].Err != nil || tr[1][0].Err != nil || tr[2][0].Err != nil {
			t.Fatalf("errors %v %v %v %v %v", tr[0][0].Err, tr[0][1].Err, tr[1][0].Err, tr[2][0].Err, tr[2][1].Err)
		}
		if want != nil && tr[0][1] != want[0][1] {
			t.Fatalf("workers or the spill change the result: %+v vs %+v", tr[0][1], want[0][1])
		}
		want = tr
	}
	if loads.Load() > 16 {
		t.Errorf("%d image loads for 2 images and 4 runs", loads.Load())
	}
	if left, _ := os.ReadDir(spill); len(left) > 0 {
		t.Errorf("the spill left %v", left)
	}
	// A spill folder that takes no file leaves the patches in memory.
	{
		tr := mk()
		if _, err := TracksSpilled(context.Background(), filepath.Join(spill, "missing"), 2, tr, load, Options{}, 1, nil); err != nil || tr[0][1] != want[0][1] {
			t.Errorf("without a spill folder: %v, %+v", err, tr[0][1])
		}
	}
	// A tentative observation of lower scale is aligned to the track's
	// other observation, not the other way round: the reference stays.
	tr := [][]Observation{{
		{Image: 0, Keypoint: 4, Frame: Frame{X: 100, Y: 100, Scale: 2}, Tentative: true},
		{Image: 1, Keypoint: 9, Frame: Frame{X: 99.6, Y: 100.3, Scale: 2.5}},
	}}
	if _, err := Tracks(context.Background(), 2, tr, load, Options{}, 1, nil); err != nil {
		t.Fatal(err)
	}
	if f := tr[0][1].Frame; f.X != 99.6 || f.Y != 100.3 || tr[0][0].Err != nil {
		t.Fatalf("the verified observation moved to (%v, %v), or the tentative one failed: %v", f.X, f.Y, tr[0][0].Err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Tracks(ctx, 2, mk(), load, Options{}, 1, nil); err != context.Canceled {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Tracks(context.Background(), 1, mk(), load, Options{}, 1, nil); err == nil {
		t.Error("an observation in image 1 of 1: no error")
	}
	// A failed load (here image 1's, in the second pass) is Tracks' error.
	bad := errors.New("image 1: unreadable")
	failing := func(i int) (*Image, error) {
		if i == 1 {
			return nil, bad
		}
		return imgs[i], nil
	}
	if _, err := Tracks(context.Background(), 2, mk(), failing, Options{}, 1, nil); err != bad {
		t.Errorf("failed load: %v, want %v", err, bad)
	}
}

// BenchmarkAlign: one patch alignment, the refine stage's inner step, from
// 0.5 px off on a sheared, rotated view.
func BenchmarkAlign(b *testing.B) {
	ident := func(x, y float64) (float64, float64) { return x, y }
	ref := NewImage(texture(200, 200, 7, ident))
	a := [4]float64{1.1, 0.15, -0.05, 0.92}
	im := NewImage(texture(200, 200, 7, func(x, y float64) (float64, float64) {
		x, y = x-100, y-100
		return a[0]*x + a[1]*y + 100.3, a[2]*x + a[3]*y + 100.3
	}))
	tp, err := NewTemplate(ref, Frame{X: 100, Y: 100, Scale: 3}, Options{})
	if err != nil {
		b.Fatal(err)
	}
	ai := inv2(a)
	px, py := ai[0]*(-0.3)+ai[1]*(-0.3)+100, ai[2]*(-0.3)+ai[3]*(-0.3)+100
	for i := 0; i < b.N; i++ {
		if _, _, _, err := tp.Align(im, Frame{X: px + 0.5, Y: py - 0.25, Scale: 3}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPrefetch: images come in order whatever the loaders, no more than
// loaders are loaded ahead of the one in use, and a failed load ends the
// loading with its error.
func TestPrefetch(t *testing.T) {
	order := []int{4, 0, 2, 7, 1, 3}
	bad := errors.New("unreadable")
	for _, loaders := range []int{1, 2, 3} {
		var mu sync.Mutex
		out, most := 0, 0 // images loaded and not yet taken
		load := func(i int) (*Image, error) {
			mu.Lock()
			out++
			most = max(most, out)
			mu.Unlock()
			if i == 3 {
				return nil, bad
			}
			return &Image{Width: i}, nil
		}
		ctx, stop := context.WithCancel(context.Background())
		next := prefetch(ctx, order, load, loaders)
		for _, i := range order {
			time.Sleep(time.Millisecond) // let the loaders run ahead
			im, err := next(i)
			mu.Lock()
			out--
			mu.Unlock()
			if i == 3 {
				if err != bad {
					t.Errorf("loaders %d: image 3 gave %v, want the load's error", loaders, err)
				}
				continue
			}
			if err != nil || im.Width != i {
				t.Fatalf("loaders %d: asked for %d, got %v, %v", loaders, i, im, err)
			}
		}
		if most > loaders+1 {
			t.Errorf("loaders %d: %d images loaded at once, want at most %d", loaders, most, loaders+1)
		}
		if _, err := next(9); err == nil {
			t.Errorf("loaders %d: an image after the last gave no error", loaders)
		}
		stop()
	}
	next := prefetch(context.Background(), order, func(i int) (*Image, error) { return &Image{}, nil }, 2)
	if _, err := next(0); err == nil {
		t.Error("an image out of order gave no error")
	}
}
