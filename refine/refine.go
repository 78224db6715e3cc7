// Package refine moves the observations of a track onto one scene point.
//
// SIFT places a keypoint where its detector peaks, and in two views of one
// scene point those peaks differ by a few tenths of a pixel: the noise a
// bundle adjustment then averages. Refinement aligns each observation's
// image patch to the patch around the track's reference observation with
// the affine warp that maximizes the enhanced correlation coefficient (ECC:
// Evangelidis and Psarakis, 2008, the criterion of OpenCV's
// findTransformECC, unchanged by the gain and offset of brightness),
// started from the two keypoints' SIFT frames, and moves the observation
// to where the reference's centre lands. Every observation of a track then
// looks at the point the reference looks at. (Lindenberger et al.'s
// Pixel-Perfect SfM, 2021, refines keypoints the same way with learned
// features; this is the photometric form.)
//
// The package is pure Go and needs no OpenCV.
package refine

import (
	"errors"
	"image"
	"math"
)

// Image is a grayscale image prepared for alignment: smoothed by OpenCV's
// 3×3 Gaussian (as findTransformECC's default gaussFiltSize 3) and its
// central-difference gradients. Pixel centres are at integer coordinates.
type Image struct {
	Width, Height int
	Pix, Gx, Gy   []float32
}

// NewImage prepares g. Its memory is three float32 planes (12 bytes a
// pixel).
func NewImage(g *image.Gray) *Image {
	w, h := g.Rect.Dx(), g.Rect.Dy()
	im := &Image{Width: w, Height: h, Pix: make([]float32, w*h), Gx: make([]float32, w*h), Gy: make([]float32, w*h)}
	if w == 0 || h == 0 {
		return im
	}
	// Separable [1 2 1]/4 with reflected borders (OpenCV's BORDER_REFLECT_101).
	tmp := make([]float32, w*h)
	for y := 0; y < h; y++ {
		row := g.Pix[g.PixOffset(g.Rect.Min.X, g.Rect.Min.Y+y):][:w]
		out := tmp[y*w:][:w]
		for x := range row {
			l, r := reflected(x-1, w), reflected(x+1, w)
			out[x] = 0.25*float32(row[l]) + 0.5*float32(row[x]) + 0.25*float32(row[r])
		}
	}
	for y := 0; y < h; y++ {
		a, b, c := tmp[reflected(y-1, h)*w:][:w], tmp[y*w:][:w], tmp[reflected(y+1, h)*w:][:w]
		out := im.Pix[y*w:][:w]
		for x := range out {
			out[x] = 0.25*a[x] + 0.5*b[x] + 0.25*c[x]
		}
	}
	for y := 0; y < h; y++ {
		a, b, c := im.Pix[reflected(y-1, h)*w:][:w], im.Pix[y*w:][:w], im.Pix[reflected(y+1, h)*w:][:w]
		gx, gy := im.Gx[y*w:][:w], im.Gy[y*w:][:w]
		for x := range b {
			gx[x] = 0.5 * (b[reflected(x+1, w)] - b[reflected(x-1, w)])
			gy[x] = 0.5 * (c[x] - a[x])
		}
	}
	return im
}

// reflected is index i of a row of n mirrored at its ends without
// repeating them (OpenCV's BORDER_REFLECT_101), for i in [−1, n].
func reflected(i, n int) int {
	switch {
	case n == 1:
		return 0
	case i < 0:
		return -i
	case i >= n:
		return 2*n - 2 - i
	}
	return i
}

// sample returns the bilinear interpolation of the three planes at (x, y),
// which must lie in [0, Width-1] × [0, Height-1].
func (im *Image) sample(x, y float64) (v, gx, gy float64) {
	x0, y0 := int(x), int(y)
	if x0 >= im.Width-1 {
		x0 = im.Width - 2
	}
	if y0 >= im.Height-1 {
		y0 = im.Height - 2
	}
	fx, fy := x-float64(x0), y-float64(y0)
	i := y0*im.Width + x0
	j := i + im.Width
	w00, w01, w10, w11 := (1-fx)*(1-fy), fx*(1-fy), (1-fx)*fy, fx*fy
	p, q := im.Pix[i:i+2], im.Pix[j:j+2]
	v = w00*float64(p[0]) + w01*float64(p[1]) + w10*float64(q[0]) + w11*float64(q[1])
	p, q = im.Gx[i:i+2], im.Gx[j:j+2]
	gx = w00*float64(p[0]) + w01*float64(p[1]) + w10*float64(q[0]) + w11*float64(q[1])
	p, q = im.Gy[i:i+2], im.Gy[j:j+2]
	gy = w00*float64(p[0]) + w01*float64(p[1]) + w10*float64(q[0]) + w11*float64(q[1])
	return v, gx, gy
}

func (im *Image) inside(x, y float64) bool {
	return x >= 0 && y >= 0 && x <= float64(im.Width-1) && y <= float64(im.Height-1) && im.Width > 1 && im.Height > 1
}

// Frame is an observation: its position (pixel centres at integers) and
// its SIFT frame, Scale (half OpenCV's keypoint size) and Angle (OpenCV's
// keypoint angle, degrees, in pixel coordinates).
type Frame struct{ X, Y, Scale, Angle float64 }

// shape is the frame's 2×2 map from a unit patch to the image: Scale
// times the rotation by Angle, row-major.
func (f Frame) shape() [4]float64 {
	s, c := math.Sincos(f.Angle * math.Pi / 180)
	return [4]float64{f.Scale * c, -f.Scale * s, f.Scale * s, f.Scale * c}
}

// Options tune the alignment; the zero value means the defaults.
type Options struct {
	// The reference patch's half-width is RadiusScale reference scales,
	// clamped to [MinRadius, MaxRadius] pixels (3, 7 and 15).
	RadiusScale          float64
	MinRadius, MaxRadius int
	// MinCorrelation is the least ECC at the end for a move (0.7).
	MinCorrelation float64
	// MaxShift bounds a move: MaxShift observation scales, at least 2 px
	// (1.5).
	MaxShift float64
	// Iterations bounds the Gauss-Newton steps (30); the steps end when
	// the correlation changes by less than Epsilon (1e-4).
	Iterations int
	Epsilon    float64
}

func (o Options) withDefaults() Options {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.RadiusScale, 3)
	def(&o.MinCorrelation, 0.7)
	def(&o.MaxShift, 1.5)
	def(&o.Epsilon, 1e-4)
	if o.MinRadius == 0 {
		o.MinRadius = 7
	}
	if o.MaxRadius == 0 {
		o.MaxRadius = 15
	}
	if o.Iterations == 0 {
		o.Iterations = 30
	}
	return o
}

// Validate reports options out of range.
func (o Options) Validate() error {
	switch {
	case o.RadiusScale < 0 || math.IsNaN(o.RadiusScale) || math.IsInf(o.RadiusScale, 0):
		return errors.New("refine: radius scale must be a finite number ≥ 0")
	case o.MinRadius < 0 || o.MaxRadius < 0 || o.MaxRadius > 64:
		return errors.New("refine: radii must be in 0..64")
	case o.MinRadius > 0 && o.MaxRadius > 0 && o.MinRadius > o.MaxRadius:
		return errors.New("refine: minimum radius above the maximum")
	case !(o.MinCorrelation >= 0 && o.MinCorrelation < 1):
		return errors.New("refine: minimum correlation must be in [0, 1)")
	case o.MaxShift < 0 || math.IsNaN(o.MaxShift) || math.IsInf(o.MaxShift, 0):
		return errors.New("refine: maximum shift must be a finite number ≥ 0")
	case o.Iterations < 0 || o.Epsilon < 0 || math.IsNaN(o.Epsilon):
		return errors.New("refine: iterations and epsilon must be ≥ 0")
	}
	return nil
}

// Template is a reference observation's patch.
type Template struct {
	Frame Frame
	R     int       // half-width: the patch is 2R+1 pixels square
	Pix   []float32 // row-major, centred on Frame's position
}

// Why an observation was not moved.
var (
	ErrBorder   = errors.New("refine: patch leaves the image")
	ErrFlat     = errors.New("refine: reference patch has no texture")
	ErrDiverged = errors.New("refine: alignment did not converge")
	ErrLow      = errors.New("refine: correlation below the minimum")
	ErrFar      = errors.New("refine: move beyond the maximum shift")
)

// NewTemplate cuts the reference patch around f from im.
func NewTemplate(im *Image, f Frame, o Options) (*Template, error) {
	o = o.withDefaults()
	r := int(math.Round(o.RadiusScale * f.Scale))
	r = min(max(r, o.MinRadius), o.MaxRadius)
	if !im.inside(f.X-float64(r), f.Y-float64(r)) || !im.inside(f.X+float64(r), f.Y+float64(r)) {
		return nil, ErrBorder
	}
	n := 2*r + 1
	t := &Template{Frame: f, R: r, Pix: make([]float32, n*n)}
	var sum, sum2 float64
	for v := 0; v < n; v++ {
		for u := 0; u < n; u++ {
			p, _, _ := im.sample(f.X+float64(u-r), f.Y+float64(v-r))
			t.Pix[v*n+u] = float32(p)
			sum += p
			sum2 += p * p
		}
	}
	m := sum / float64(n*n)
	if sum2/float64(n*n)-m*m < 4 { // standard deviation below 2 grey levels
		return nil, ErrFlat
	}
	return t, nil
}

// Align finds where the template's centre lies in im, whose observation
// f is the starting point (the affine map between the two SIFT frames
// starts the warp). It returns the new position and the final correlation;
// the error says why the observation should stay where it is.
func (t *Template) Align(im *Image, f Frame, o Options) (x, y, cc float64, err error) {
	o = o.withDefaults()
	// Warp p: template pixel (u, v), centred at (0, 0), goes to
	// (p0 u + p1 v + p2, p3 u + p4 v + p5) in im.
	ro, rr := f.shape(), t.Frame.shape()
	det := rr[0]*rr[3] - rr[1]*rr[2]
	if !(math.Abs(det) > 1e-12) {
		return 0, 0, 0, ErrDiverged
	}
	inv := [4]float64{rr[3] / det, -rr[1] / det, -rr[2] / det, rr[0] / det}
	p := [6]float64{
		ro[0]*inv[0] + ro[1]*inv[2], ro[0]*inv[1] + ro[1]*inv[3], f.X,
		ro[2]*inv[0] + ro[3]*inv[2], ro[2]*inv[1] + ro[3]*inv[3], f.Y,
	}
	w := newPatchWarp(im, t)
	defer w.release()
	rho, last := -1.0, -o.Epsilon // as OpenCV: the first test passes
	for it := 0; it < o.Iterations && math.Abs(rho-last) >= o.Epsilon; it++ {
		inorm, ok := w.sample(&p)
		if !ok {
			return 0, 0, 0, ErrBorder
		}
		if inorm == 0 {
			return 0, 0, 0, ErrDiverged
		}
		r, err := w.step(&p, inorm)
		if err != nil {
			return 0, 0, 0, err
		}
		last, rho = rho, r
	}
	// The correlation at the final warp.
	inorm, ok := w.sample(&p)
	if !ok {
		return 0, 0, 0, ErrBorder
	}
	corr := w.correlation()
	if inorm == 0 {
		return 0, 0, 0, ErrDiverged
	}
	cc = corr / (inorm * w.tn)
	x, y = p[2], p[5]
	if cc < o.MinCorrelation {
		return x, y, cc, ErrLow
	}
	if math.Hypot(x-f.X, y-f.Y) > max(2, o.MaxShift*f.Scale) {
		return x, y, cc, ErrFar
	}
	return x, y, cc, nil
}
