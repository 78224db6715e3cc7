package datasets

import (
	"errors"
	"image"
	"math"
	"math/rand/v2"
)

// StripConfig describes a long planar textured scene (a facade, a strip
// of ground seen from a drone) photographed by Views cameras moving along
// it, for measuring pair selection and the pipeline at scale: the texture
// is procedural (hashed value noise and shapes), so a scene of any length
// costs no memory, and each view is rendered on demand through its known
// homography.
type StripConfig struct {
	Views         int     // number of views (at least 2)
	Width, Height int     // view size (default 1024×768)
	Step          float64 // advance between views along the strip, pixels (default Width/6)
	Perspective   float64 // corner jitter of each view, pixels (default 40)
	Noise         float64 // pixel noise σ, grey levels (default 3)
	Seed          uint64
}

func (c StripConfig) withDefaults() StripConfig {
	if c.Width == 0 {
		c.Width = 1024
	}
	if c.Height == 0 {
		c.Height = 768
	}
	if c.Step == 0 {
		c.Step = float64(c.Width) / 6
	}
	if c.Perspective == 0 {
		c.Perspective = 40
	}
	if c.Noise == 0 {
		c.Noise = 3
	}
	return c
}

// Strip is a synthetic strip scene; Render draws a view.
type Strip struct {
	cfg     StripConfig
	toScene []Homography
	gain    []float64
	bias    []float64
}

// NewStrip places the cameras of cfg (nothing is rendered yet).
func NewStrip(cfg StripConfig) (*Strip, error) {
	cfg = cfg.withDefaults()
	if cfg.Views < 2 || cfg.Width < 64 || cfg.Height < 64 || !(cfg.Step > 0) || cfg.Perspective < 0 || cfg.Noise < 0 {
		return nil, errors.New("datasets: a strip needs at least 2 views of at least 64×64 pixels and a positive step")
	}
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x57219))
	s := &Strip{cfg: cfg}
	h := float64(cfg.Height)
	for k := 0; k < cfg.Views; k++ {
		ang := (rng.Float64() - 0.5) * 0.3
		sc := 0.9 + 0.2*rng.Float64()
		cx := float64(k)*cfg.Step + (rng.Float64()-0.5)*cfg.Step*0.3
		cy := (rng.Float64() - 0.5) * h * 0.2
		hk, err := placeView(rng, cfg.Width, cfg.Height, cx, cy, sc, ang, cfg.Perspective)
		if err != nil {
			return nil, err
		}
		s.toScene = append(s.toScene, hk)
		s.gain = append(s.gain, 0.8+0.3*rng.Float64())
		s.bias = append(s.bias, (rng.Float64()-0.5)*30)
	}
	return s, nil
}

// Views is the number of views.
func (s *Strip) Views() int { return len(s.toScene) }

// ToStrip returns the homography from view k's pixels to the strip's
// plane, the frame every view is rendered from.
func (s *Strip) ToStrip(k int) Homography { return s.toScene[k] }

// H returns the homography from view i to view j.
func (s *Strip) H(i, j int) Homography {
	inv, _ := s.toScene[j].Inverse()
	return inv.Mul(s.toScene[i])
}

// Overlap is the fraction of view i's pixels (on a 32×24 grid) that view
// j also sees.
func (s *Strip) Overlap(i, j int) float64 {
	h := s.H(i, j)
	w, ht := float64(s.cfg.Width), float64(s.cfg.Height)
	in := 0
	for gy := 0; gy < 24; gy++ {
		for gx := 0; gx < 32; gx++ {
			x, y, ok := h.Apply((float64(gx)+0.5)*w/32, (float64(gy)+0.5)*ht/24)
			if ok && x >= 0 && y >= 0 && x < w && y < ht {
				in++
			}
		}
	}
	return float64(in) / (32 * 24)
}

// Render draws view k; the same view always renders the same pixels.
func (s *Strip) Render(k int) *image.Gray {
	cfg := s.cfg
	img := image.NewGray(image.Rect(0, 0, cfg.Width, cfg.Height))
	hk := s.toScene[k]
	noise := rand.New(rand.NewPCG(cfg.Seed^uint64(k)*0x9e3779b97f4a7c15, 0x6e6f697365))
	for y := 0; y < cfg.Height; y++ {
		for x := 0; x < cfg.Width; x++ {
			u, v, _ := hk.Apply(float64(x), float64(y))
			val := s.gain[k]*stripTexture(cfg.Seed, u, v) + s.bias[k] + noise.NormFloat64()*cfg.Noise
			img.Pix[y*img.Stride+x] = uint8(math.Max(0, math.Min(255, math.Round(val))))
		}
	}
	return img
}

// hash2 maps a lattice point and a salt to [0, 1).
func hash2(seed uint64, ix, iy int64, salt uint64) float64 {
	z := seed ^ uint64(ix)*0x9e3779b97f4a7c15 ^ uint64(iy)*0xc2b2ae3d27d4eb4f ^ salt*0x165667b19e3779f9
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11) / (1 << 53)
}

// stripTexture is the scene's grey level at (u, v): four octaves of
// hashed value noise and, in seven of ten 20-pixel cells, one shape (rectangle, disc or
// ring) of random grey, so SIFT finds corners and blobs everywhere and no
// two places look alike.
func stripTexture(seed uint64, u, v float64) float64 {
	t := 0.0
	for oct, cell := range []float64{96, 48, 24, 12} {
		x, y := u/cell, v/cell
		x0, y0 := math.Floor(x), math.Floor(y)
		fx, fy := x-x0, y-y0
		ix, iy := int64(x0), int64(y0)
		s := uint64(oct + 1)
		a := hash2(seed, ix, iy, s)
		b := hash2(seed, ix+1, iy, s)
		c := hash2(seed, ix, iy+1, s)
		d := hash2(seed, ix+1, iy+1, s)
		amp := 60 / math.Pow(1.6, float64(oct))
		t += amp * ((1-fy)*((1-fx)*a+fx*b) + fy*((1-fx)*c+fx*d))
	}
	const cell = 20
	cx0, cy0 := int64(math.Floor(u/cell)), int64(math.Floor(v/cell))
	for dy := int64(-1); dy <= 1; dy++ {
		for dx := int64(-1); dx <= 1; dx++ {
			ix, iy := cx0+dx, cy0+dy
			if hash2(seed, ix, iy, 10) < 0.3 {
				continue
			}
			px := (float64(ix) + hash2(seed, ix, iy, 11)) * cell
			py := (float64(iy) + hash2(seed, ix, iy, 12)) * cell
			r := 3 + 9*hash2(seed, ix, iy, 13)
			g := hash2(seed, ix, iy, 14)*220 - 110
			ddx, ddy := u-px, v-py
			dd := math.Hypot(ddx, ddy)
			in := false
			switch int(hash2(seed, ix, iy, 15) * 3) {
			case 0:
				in = math.Abs(ddx) <= r && math.Abs(ddy) <= r*0.6
			case 1:
				in = dd <= r
			default:
				in = dd <= r && dd >= r*0.6
			}
			if in {
				t += g
			}
		}
	}
	// Noise spans about [0, 110] and shapes add ±110: map to grey levels.
	return 255 * (t + 60) / 230
}
