package datasets

import (
	"errors"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
)

// SceneConfig describes a synthetic planar scene seen from several views:
// a procedural texture (multi-scale value noise and random shapes, rich in
// corners and blobs for SIFT) rendered by random homographies with a
// brightness change and noise per view. It is the embedded default of
// `clearmatch demo`: a Graffiti-like problem that needs no data.
type SceneConfig struct {
	Views         int     // number of views (default 6)
	Width, Height int     // view size (default 640×480)
	Perspective   float64 // corner jitter of each view, in pixels (default 50)
	Noise         float64 // pixel noise σ, in grey levels (default 3)
	Seed          uint64
}

func (c SceneConfig) withDefaults() SceneConfig {
	if c.Views == 0 {
		c.Views = 6
	}
	if c.Width == 0 {
		c.Width = 640
	}
	if c.Height == 0 {
		c.Height = 480
	}
	if c.Perspective == 0 {
		c.Perspective = 50
	}
	if c.Noise == 0 {
		c.Noise = 3
	}
	return c
}

// Scene is a rendered synthetic scene.
type Scene struct {
	Views []*image.Gray
	// toScene[k] maps pixels of view k to the texture.
	toScene []Homography
}

// H returns the homography from view i to view j.
func (s *Scene) H(i, j int) Homography {
	inv, _ := s.toScene[j].Inverse()
	return inv.Mul(s.toScene[i])
}

// NewScene renders the scene described by cfg.
func NewScene(cfg SceneConfig) (*Scene, error) {
	cfg = cfg.withDefaults()
	if cfg.Views < 2 || cfg.Width < 64 || cfg.Height < 64 || cfg.Perspective < 0 || cfg.Noise < 0 {
		return nil, errors.New("datasets: scene needs at least 2 views of at least 64×64 pixels")
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5ce4e))
	tw, th := cfg.Width*3/2, cfg.Height*3/2
	tex := texture(rng, tw, th)
	s := &Scene{}
	for k := 0; k < cfg.Views; k++ {
		// The view's corners land on a jittered, rotated, scaled rectangle
		// around the texture's centre.
		ang := (rng.Float64() - 0.5) * 0.35
		sc := 0.9 + 0.25*rng.Float64()
		cx := float64(tw)/2 + (rng.Float64()-0.5)*float64(cfg.Width)*0.15
		cy := float64(th)/2 + (rng.Float64()-0.5)*float64(cfg.Height)*0.15
		hk, err := placeView(rng, cfg.Width, cfg.Height, cx, cy, sc, ang, cfg.Perspective)
		if err != nil {
			return nil, err
		}
		s.toScene = append(s.toScene, hk)
		gain, bias := 0.75+0.4*rng.Float64(), (rng.Float64()-0.5)*40
		img := image.NewGray(image.Rect(0, 0, cfg.Width, cfg.Height))
		for y := 0; y < cfg.Height; y++ {
			for x := 0; x < cfg.Width; x++ {
				u, v, _ := hk.Apply(float64(x), float64(y))
				val := gain*bilinear(tex, tw, th, u, v) + bias + rng.NormFloat64()*cfg.Noise
				img.SetGray(x, y, color.Gray{uint8(math.Max(0, math.Min(255, math.Round(val))))})
			}
		}
		s.Views = append(s.Views, img)
	}
	return s, nil
}

// texture makes a w×h grey texture in [0, 255].
func texture(rng *rand.Rand, w, h int) []float64 {
	t := make([]float64, w*h)
	// Value noise, four octaves.
	for oct, cell := range []int{96, 48, 24, 12} {
		gw, gh := w/cell+2, h/cell+2
		grid := make([]float64, gw*gh)
		for i := range grid {
			grid[i] = rng.Float64()
		}
		amp := 60 / math.Pow(1.6, float64(oct))
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				t[y*w+x] += amp * bilinear(grid, gw, gh, float64(x)/float64(cell), float64(y)/float64(cell))
			}
		}
	}
	// Shapes: rectangles, discs and rings of random grey.
	for n := 0; n < 450; n++ {
		g := rng.Float64()*220 - 110
		cx, cy := rng.Float64()*float64(w), rng.Float64()*float64(h)
		r := 4 + rng.ExpFloat64()*12
		kind := rng.IntN(3)
		x0, x1 := max(0, int(cx-r-1)), min(w-1, int(cx+r+1))
		y0, y1 := max(0, int(cy-r-1)), min(h-1, int(cy+r+1))
		for y := y0; y <= y1; y++ {
			for x := x0; x <= x1; x++ {
				dx, dy := float64(x)-cx, float64(y)-cy
				d := math.Hypot(dx, dy)
				in := false
				switch kind {
				case 0:
					in = math.Abs(dx) <= r && math.Abs(dy) <= r*0.6
				case 1:
					in = d <= r
				default:
					in = d <= r && d >= r*0.6
				}
				if in {
					t[y*w+x] += g
				}
			}
		}
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range t {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	for i, v := range t {
		t[i] = 255 * (v - lo) / (hi - lo)
	}
	return t
}

func bilinear(t []float64, w, h int, x, y float64) float64 {
	x = math.Max(0, math.Min(float64(w-1), x))
	y = math.Max(0, math.Min(float64(h-1), y))
	x0, y0 := int(x), int(y)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := x-float64(x0), y-float64(y0)
	return (1-fy)*((1-fx)*t[y0*w+x0]+fx*t[y0*w+x1]) + fy*((1-fx)*t[y1*w+x0]+fx*t[y1*w+x1])
}

// placeView is the homography from a w×h view's pixels to the scene's
// plane that puts the view's corners on a rectangle scaled by sc, turned by
// ang and centred at (cx, cy), each corner then moved at random by up to
// perspective pixels along each axis.
func placeView(rng *rand.Rand, width, height int, cx, cy, sc, ang, perspective float64) (Homography, error) {
	w, h := float64(width), float64(height)
	src := [4][2]float64{{0, 0}, {w - 1, 0}, {w - 1, h - 1}, {0, h - 1}}
	var dst [4][2]float64
	for c, p := range src {
		x, y := (p[0]-w/2)*sc, (p[1]-h/2)*sc
		dst[c] = [2]float64{
			cx + x*math.Cos(ang) - y*math.Sin(ang) + (rng.Float64()-0.5)*2*perspective,
			cy + x*math.Sin(ang) + y*math.Cos(ang) + (rng.Float64()-0.5)*2*perspective,
		}
	}
	return homographyFrom(src, dst)
}

// homographyFrom solves the homography mapping four points src to dst
// (direct linear transform with h33 = 1, Gaussian elimination with partial
// pivoting).
func homographyFrom(src, dst [4][2]float64) (Homography, error) {
	var a [8][9]float64
	for i := 0; i < 4; i++ {
		x, y, u, v := src[i][0], src[i][1], dst[i][0], dst[i][1]
		a[2*i] = [9]float64{x, y, 1, 0, 0, 0, -u * x, -u * y, u}
		a[2*i+1] = [9]float64{0, 0, 0, x, y, 1, -v * x, -v * y, v}
	}
	for c := 0; c < 8; c++ {
		p := c
		for r := c + 1; r < 8; r++ {
			if math.Abs(a[r][c]) > math.Abs(a[p][c]) {
				p = r
			}
		}
		if math.Abs(a[p][c]) < 1e-12 {
			return Homography{}, errors.New("datasets: degenerate homography")
		}
		a[c], a[p] = a[p], a[c]
		for r := 0; r < 8; r++ {
			if r != c {
				f := a[r][c] / a[c][c]
				for k := c; k < 9; k++ {
					a[r][k] -= f * a[c][k]
				}
			}
		}
	}
	var h Homography
	for i := 0; i < 8; i++ {
		h[i] = a[i][8] / a[i][i]
	}
	h[8] = 1
	return h, nil
}
