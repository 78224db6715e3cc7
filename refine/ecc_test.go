package refine

import (
	"image"
	"math"
	"math/rand/v2"
	"testing"
)

// plainImage is NewImage written plainly, pixel by pixel: the reference
// the row-sliced filter must equal bit for bit.
func plainImage(g *image.Gray) *Image {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	im := &Image{Width: w, Height: h, Pix: make([]float32, w*h), Gx: make([]float32, w*h), Gy: make([]float32, w*h)}
	at := func(x, y int) float32 { return float32(g.GrayAt(g.Rect.Min.X+x, g.Rect.Min.Y+y).Y) }
	tmp := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			tmp[y*w+x] = 0.25*at(reflected(x-1, w), y) + 0.5*at(x, y) + 0.25*at(reflected(x+1, w), y)
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			im.Pix[y*w+x] = 0.25*tmp[reflected(y-1, h)*w+x] + 0.5*tmp[y*w+x] + 0.25*tmp[reflected(y+1, h)*w+x]
		}
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			im.Gx[y*w+x] = 0.5 * (im.Pix[y*w+reflected(x+1, w)] - im.Pix[y*w+reflected(x-1, w)])
			im.Gy[y*w+x] = 0.5 * (im.Pix[reflected(y+1, h)*w+x] - im.Pix[reflected(y-1, h)*w+x])
		}
	}
	return im
}

func noise(w, h int, r *rand.Rand) *image.Gray {
	g := image.NewGray(image.Rect(3, 5, 3+w, 5+h)) // an offset rectangle
	for k := range g.Pix {
		g.Pix[k] = uint8(r.IntN(256))
	}
	return g
}

func TestNewImageIsThePlainFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, sz := range [][2]int{{1, 1}, {1, 7}, {7, 1}, {2, 2}, {3, 5}, {40, 31}} {
		g := noise(sz[0], sz[1], r)
		got, want := NewImage(g), plainImage(g)
		for k := range want.Pix {
			if math.Float32bits(got.Pix[k]) != math.Float32bits(want.Pix[k]) ||
				math.Float32bits(got.Gx[k]) != math.Float32bits(want.Gx[k]) ||
				math.Float32bits(got.Gy[k]) != math.Float32bits(want.Gy[k]) {
				t.Fatalf("%d×%d: pixel %d is (%v %v %v), plainly (%v %v %v)", sz[0], sz[1], k,
					got.Pix[k], got.Gx[k], got.Gy[k], want.Pix[k], want.Gx[k], want.Gy[k])
			}
		}
	}
}

// TestWarpIsPlainSampling checks sample, which skips the per-pixel border
// test when the patch's corners are clear of the border, against the plain
// loop (test every pixel, Image.sample), on warps clear of the border,
// touching it exactly, and crossing it by less than a pixel.
func TestWarpIsPlainSampling(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	im := NewImage(noise(60, 50, r))
	tp := &Template{R: 4, Pix: make([]float32, 81)}
	for k := range tp.Pix {
		tp.Pix[k] = float32(r.IntN(256))
	}
	for c := 0; c < 400; c++ {
		a := 0.5 + r.Float64()
		ang := r.Float64() * 2 * math.Pi
		p := [6]float64{a * math.Cos(ang), -a * math.Sin(ang), 0, a * math.Sin(ang), a * math.Cos(ang), 0}
		reach := (math.Abs(p[0]) + math.Abs(p[1])) * 4
		switch c % 4 {
		case 0: // inside
			p[2], p[5] = 10+r.Float64()*40, 10+r.Float64()*30
		case 1: // a corner exactly on the left border
			p[2], p[5] = reach, 25
			p[0], p[1] = math.Abs(p[0]), math.Abs(p[1])
		case 2: // crossing the right border by a little
			p[2], p[5] = 59-reach+r.Float64()*1e-3, 25
		case 3: // crossing by a rounding error, or not
			p[2], p[5] = reach-1e-15, 25+r.Float64()
			p[0], p[1] = math.Abs(p[0]), math.Abs(p[1])
		}
		w := newPatchWarp(im, tp)
		norm, ok := w.sample(&p)
		wantNorm, wantOK, iw, jac := plainSample(im, tp.R, p)
		if ok != wantOK || ok && math.Float64bits(norm) != math.Float64bits(wantNorm) {
			t.Fatalf("case %d %v: (%v, %v), plainly (%v, %v)", c, p, norm, ok, wantNorm, wantOK)
		}
		for k := range iw {
			if ok && (math.Float64bits(w.iw[k]) != math.Float64bits(iw[k]) || w.jac[k] != jac[k]) {
				t.Fatalf("case %d: pixel %d differs", c, k)
			}
		}
		w.release()
	}
}

// plainSample is the warp of an earlier Align: every pixel tested, then
// sampled.
func plainSample(im *Image, r int, p [6]float64) (norm float64, ok bool, iw []float64, jac [][6]float64) {
	var mean float64
	for v := -r; v <= r; v++ {
		for u := -r; u <= r; u++ {
			fu, fv := float64(u), float64(v)
			wx, wy := p[0]*fu+p[1]*fv+p[2], p[3]*fu+p[4]*fv+p[5]
			if !im.inside(wx, wy) {
				return 0, false, nil, nil
			}
			val, gx, gy := im.sample(wx, wy)
			iw = append(iw, val)
			jac = append(jac, [6]float64{gx * fu, gx * fv, gx, gy * fu, gy * fv, gy})
			mean += val
		}
	}
	mean /= float64(len(iw))
	for k := range iw {
		iw[k] -= mean
		norm += iw[k] * iw[k]
	}
	return math.Sqrt(norm), true, iw, jac
}

// TestNormalEquationsArePlainSums checks the one-pass sums against the
// plain two-pass loops over the centred Jacobian.
func TestNormalEquationsArePlainSums(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 121
	w := &patchWarp{iw: make([]float64, n), tz: make([]float64, n), jac: make([][6]float64, n)}
	var jm [6]float64
	for k := 0; k < n; k++ {
		w.iw[k], w.tz[k] = r.NormFloat64()*30, r.NormFloat64()*30
		for a := range w.jac[k] {
			w.jac[k][a] = r.NormFloat64() * 100
			jm[a] += w.jac[k][a]
		}
	}
	for a := range jm {
		jm[a] /= float64(n)
	}
	w.jm = jm
	H, pi, pt, corr := w.normalEquations()
	var wH [6][6]float64
	var wpi, wpt [6]float64
	var wcorr float64
	for k := 0; k < n; k++ {
		var j [6]float64
		for a := range j {
			j[a] = w.jac[k][a] - jm[a]
		}
		for a := 0; a < 6; a++ {
			for b := a; b < 6; b++ {
				wH[a][b] += j[a] * j[b]
			}
			wpi[a] += j[a] * w.iw[k]
			wpt[a] += j[a] * w.tz[k]
		}
		wcorr += w.tz[k] * w.iw[k]
	}
	for a := 0; a < 6; a++ {
		for b := a; b < 6; b++ {
			if H[a][b] != wH[a][b] || H[b][a] != wH[a][b] {
				t.Fatalf("H[%d][%d] = %v, plainly %v", a, b, H[a][b], wH[a][b])
			}
		}
	}
	if pi != wpi || pt != wpt || corr != wcorr {
		t.Fatalf("projections (%v, %v, %v), plainly (%v, %v, %v)", pi, pt, corr, wpi, wpt, wcorr)
	}
}
