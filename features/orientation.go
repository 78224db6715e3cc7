package features

import "math"

// Orientation assignment for features at given points (the Hotel protocol:
// one descriptor per labelled landmark, at a fixed scale, with the
// orientation computed from the image).
//
// It follows Lowe's method as VLFeat implements it (vl_sift with given
// frames and the 'orientations' option, which the CLEAR authors used): a
// 36-bin histogram of gradient orientations in a Gaussian window of
// σ_w = 1.5σ and radius 3σ_w, smoothed six times with a [1 1 1]/3 box
// filter, whose peaks of at least 80% of the maximum are orientations,
// refined by a parabola. The authors kept the first orientation VLFeat
// returns for each point, which is the first peak in increasing angle; so
// does this. Gradients are sampled on the grid of the scale-space octave
// that holds σ (step 2^o pixels for σ = 1.6·2^(o+s/3), s in [1, 3]) of the
// image blurred to σ, as VLFeat samples its octave.

// octaveOf returns the SIFT octave o and layer s (1..3) that hold scale σ
// for OpenCV's pyramid (σ0 = 1.6, 3 layers per octave).
func octaveOf(sigma float64) (octave, layer int) {
	r := int(math.Round(3 * math.Log2(sigma/1.6)))
	r = max(r, 1)
	octave = (r - 1) / 3
	return octave, r - 3*octave
}

// orientationAt returns the orientation, in degrees clockwise in image
// coordinates (OpenCV's KeyPoint.angle), of the point (x, y) at scale sigma
// in the w×h image blurred (row-major, float32) to about sigma.
func orientationAt(blurred []float32, w, h int, x, y, sigma float64) float64 {
	const bins = 36
	o, _ := octaveOf(sigma)
	step := float64(int(1) << o)
	sw := 1.5 * sigma / step // window σ in grid units
	rad := int(math.Round(3 * sw))
	at := func(px, py float64) float64 {
		ix := min(max(int(math.Round(px)), 0), w-1)
		iy := min(max(int(math.Round(py)), 0), h-1)
		return float64(blurred[iy*w+ix])
	}
	var hist [bins]float64
	for dy := -rad; dy <= rad; dy++ {
		for dx := -rad; dx <= rad; dx++ {
			r2 := float64(dx*dx + dy*dy)
			if r2 > float64(rad*rad)+0.6 {
				continue
			}
			px, py := x+float64(dx)*step, y+float64(dy)*step
			if px < step || py < step || px > float64(w-1)-step || py > float64(h-1)-step {
				continue
			}
			gx := 0.5 * (at(px+step, py) - at(px-step, py))
			gy := 0.5 * (at(px, py+step) - at(px, py-step))
			mag := math.Hypot(gx, gy)
			ang := math.Mod(math.Atan2(gy, gx)+2*math.Pi, 2*math.Pi)
			wgt := math.Exp(-r2 / (2 * sw * sw))
			b := int(math.Floor(bins*ang/(2*math.Pi) - 0.5))
			frac := bins*ang/(2*math.Pi) - 0.5 - float64(b)
			hist[(b+bins)%bins] += (1 - frac) * wgt * mag
			hist[(b+1+bins)%bins] += frac * wgt * mag
		}
	}
	for it := 0; it < 6; it++ {
		prev, first := hist[bins-1], hist[0]
		for i := 0; i < bins; i++ {
			next := first
			if i+1 < bins {
				next = hist[i+1]
			}
			cur := hist[i]
			hist[i] = (prev + cur + next) / 3
			prev = cur
		}
	}
	maxh := 0.0
	for _, v := range hist {
		maxh = max(maxh, v)
	}
	if maxh == 0 {
		return 0
	}
	for i := 0; i < bins; i++ {
		l, c, r := hist[(i+bins-1)%bins], hist[i], hist[(i+1)%bins]
		if c > l && c >= r && c >= 0.8*maxh { // the first bin of a plateau counts
			di := -0.5 * (r - l) / (r - 2*c + l)
			th := 2 * math.Pi * (float64(i) + di + 0.5) / bins
			deg := math.Mod(th*180/math.Pi+360, 360)
			return deg
		}
	}
	return 0
}
