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
	refl := func(i, n int) int {
		if n == 1 {
			return 0
		}
		if i < 0 {
			return -i
		}
		if i >= n {
			return 2*n - 2 - i
		}
		return i
	}
	tmp := make([]float32, w*h)
	for y := 0; y < h; y++ {
		row := g.Pix[g.PixOffset(g.Rect.Min.X, g.Rect.Min.Y+y):][:w]
		for x := 0; x < w; x++ {
			tmp[y*w+x] = 0.25*float32(row[refl(x-1, w)]) + 0.5*float32(row[x]) + 0.25*float32(row[refl(x+1, w)])
		}
	}
	for y := 0; y < h; y++ {
		a, b := refl(y-1, h)*w, refl(y+1, h)*w
		for x := 0; x < w; x++ {
			im.Pix[y*w+x] = 0.25*tmp[a+x] + 0.5*tmp[y*w+x] + 0.25*tmp[b+x]
		}
	}
	for y := 0; y < h; y++ {
		a, b := refl(y-1, h)*w, refl(y+1, h)*w
		for x := 0; x < w; x++ {
			im.Gx[y*w+x] = 0.5 * (im.Pix[y*w+refl(x+1, w)] - im.Pix[y*w+refl(x-1, w)])
			im.Gy[y*w+x] = 0.5 * (im.Pix[b+x] - im.Pix[a+x])
		}
	}
	return im
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
	w00, w01, w10, w11 := (1-fx)*(1-fy), fx*(1-fy), (1-fx)*fy, fx*fy
	lerp := func(p []float32) float64 {
		return w00*float64(p[i]) + w01*float64(p[i+1]) + w10*float64(p[i+im.Width]) + w11*float64(p[i+im.Width+1])
	}
	return lerp(im.Pix), lerp(im.Gx), lerp(im.Gy)
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
	n := 2*t.R + 1
	N := n * n
	tz := make([]float64, N)
	var tm float64
	for _, v := range t.Pix {
		tm += float64(v)
	}
	tm /= float64(N)
	var tn float64
	for k, v := range t.Pix {
		tz[k] = float64(v) - tm
		tn += tz[k] * tz[k]
	}
	tn = math.Sqrt(tn)
	iw := make([]float64, N)
	jac := make([][6]float64, N)
	rho, last := -1.0, -o.Epsilon // as OpenCV: the first test passes
	// warp samples im under p into iw (zero-mean) and jac and returns iw's
	// norm; false when a pixel leaves im.
	warp := func() (norm float64, ok bool) {
		var mean float64
		k := 0
		for v := -t.R; v <= t.R; v++ {
			for u := -t.R; u <= t.R; u++ {
				fu, fv := float64(u), float64(v)
				wx, wy := p[0]*fu+p[1]*fv+p[2], p[3]*fu+p[4]*fv+p[5]
				if !im.inside(wx, wy) {
					return 0, false
				}
				val, gx, gy := im.sample(wx, wy)
				iw[k] = val
				jac[k] = [6]float64{gx * fu, gx * fv, gx, gy * fu, gy * fv, gy}
				mean += val
				k++
			}
		}
		mean /= float64(N)
		for k := range iw {
			iw[k] -= mean
			norm += iw[k] * iw[k]
		}
		return math.Sqrt(norm), true
	}
	for it := 0; it < o.Iterations && math.Abs(rho-last) >= o.Epsilon; it++ {
		inorm, ok := warp()
		if !ok {
			return 0, 0, 0, ErrBorder
		}
		if inorm == 0 {
			return 0, 0, 0, ErrDiverged
		}
		H, pi, pt, corr := normalEquations(jac, iw, tz)
		last, rho = rho, corr/(inorm*tn)
		if math.IsNaN(rho) {
			return 0, 0, 0, ErrDiverged
		}
		L, ok := cholesky6(H)
		if !ok {
			return 0, 0, 0, ErrDiverged
		}
		hi := L.solve(pi)
		ln := inorm*inorm - dot6(pi, hi)
		ld := corr - dot6(pt, hi)
		if ld <= 0 {
			return 0, 0, 0, ErrDiverged
		}
		lambda := ln / ld
		// Δp = H⁻¹ Jᵀ(λ t − i)
		var e [6]float64
		for a := 0; a < 6; a++ {
			e[a] = lambda*pt[a] - pi[a]
		}
		dp := L.solve(e)
		for a := range p {
			p[a] += dp[a]
		}
	}
	// The correlation at the final warp.
	inorm, ok := warp()
	if !ok {
		return 0, 0, 0, ErrBorder
	}
	var corr float64
	for k := range iw {
		corr += tz[k] * iw[k]
	}
	if inorm == 0 {
		return 0, 0, 0, ErrDiverged
	}
	cc = corr / (inorm * tn)
	x, y = p[2], p[5]
	if cc < o.MinCorrelation {
		return x, y, cc, ErrLow
	}
	if math.Hypot(x-f.X, y-f.Y) > max(2, o.MaxShift*f.Scale) {
		return x, y, cc, ErrFar
	}
	return x, y, cc, nil
}

// normalEquations returns the Hessian JᵀJ of the zero-mean Jacobian, the
// projections of the image and template on it, and their correlation.
// Each sum runs over the pixels in order in its own scalar, so the
// compiler keeps the sums in registers (arrays would be stored back at
// every pixel); the arithmetic is the plain loops', term for term.
func normalEquations(jac [][6]float64, iw, tz []float64) (H [6][6]float64, pi, pt [6]float64, corr float64) {
	var jm [6]float64
	for k := range jac {
		for a := 0; a < 6; a++ {
			jm[a] += jac[k][a]
		}
	}
	for a := range jm {
		jm[a] /= float64(len(jac))
	}
	var h00, h01, h02, h03, h04, h05, h11, h12, h13, h14, h15 float64
	var h22, h23, h24, h25, h33, h34, h35, h44, h45, h55 float64
	for k := range jac {
		jk := &jac[k]
		j0, j1, j2, j3, j4, j5 := jk[0]-jm[0], jk[1]-jm[1], jk[2]-jm[2], jk[3]-jm[3], jk[4]-jm[4], jk[5]-jm[5]
		h00 += j0 * j0
		h01 += j0 * j1
		h02 += j0 * j2
		h03 += j0 * j3
		h04 += j0 * j4
		h05 += j0 * j5
		h11 += j1 * j1
		h12 += j1 * j2
		h13 += j1 * j3
		h14 += j1 * j4
		h15 += j1 * j5
		h22 += j2 * j2
		h23 += j2 * j3
		h24 += j2 * j4
		h25 += j2 * j5
		h33 += j3 * j3
		h34 += j3 * j4
		h35 += j3 * j5
		h44 += j4 * j4
		h45 += j4 * j5
		h55 += j5 * j5
	}
	var pi0, pi1, pi2, pi3, pi4, pi5, pt0, pt1, pt2, pt3, pt4, pt5 float64
	iw, tz = iw[:len(jac)], tz[:len(jac)]
	for k := range jac {
		jk := &jac[k]
		j0, j1, j2, j3, j4, j5 := jk[0]-jm[0], jk[1]-jm[1], jk[2]-jm[2], jk[3]-jm[3], jk[4]-jm[4], jk[5]-jm[5]
		i, t := iw[k], tz[k]
		pi0 += j0 * i
		pi1 += j1 * i
		pi2 += j2 * i
		pi3 += j3 * i
		pi4 += j4 * i
		pi5 += j5 * i
		pt0 += j0 * t
		pt1 += j1 * t
		pt2 += j2 * t
		pt3 += j3 * t
		pt4 += j4 * t
		pt5 += j5 * t
		corr += t * i
	}
	H = [6][6]float64{
		{h00, h01, h02, h03, h04, h05},
		{h01, h11, h12, h13, h14, h15},
		{h02, h12, h22, h23, h24, h25},
		{h03, h13, h23, h33, h34, h35},
		{h04, h14, h24, h34, h44, h45},
		{h05, h15, h25, h35, h45, h55},
	}
	return H, [6]float64{pi0, pi1, pi2, pi3, pi4, pi5}, [6]float64{pt0, pt1, pt2, pt3, pt4, pt5}, corr
}

func dot6(a, b [6]float64) float64 {
	var s float64
	for k := range a {
		s += a[k] * b[k]
	}
	return s
}

// chol6 is the Cholesky factor L (lower triangular, H = L Lᵀ) of a
// symmetric positive definite 6×6 matrix.
type chol6 [6][6]float64

// cholesky6 factors H; false when H is not (numerically) positive
// definite. Each Gauss-Newton step solves twice with the same H.
func cholesky6(H [6][6]float64) (chol6, bool) {
	var L chol6
	for i := 0; i < 6; i++ {
		for j := 0; j <= i; j++ {
			s := H[i][j]
			for k := 0; k < j; k++ {
				s -= L[i][k] * L[j][k]
			}
			if i == j {
				if !(s > 1e-12) {
					return chol6{}, false
				}
				L[i][i] = math.Sqrt(s)
			} else {
				L[i][j] = s / L[j][j]
			}
		}
	}
	return L, true
}

// solve returns x with L Lᵀ x = b.
func (L *chol6) solve(b [6]float64) [6]float64 {
	var y, x [6]float64
	for i := 0; i < 6; i++ {
		s := b[i]
		for k := 0; k < i; k++ {
			s -= L[i][k] * y[k]
		}
		y[i] = s / L[i][i]
	}
	for i := 5; i >= 0; i-- {
		s := y[i]
		for k := i + 1; k < 6; k++ {
			s -= L[k][i] * x[k]
		}
		x[i] = s / L[i][i]
	}
	return x
}
