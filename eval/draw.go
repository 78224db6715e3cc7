package eval

import (
	"image"
	"image/color"
	"math"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/disintegration/imaging"
)

// Drawing is kept apart from the metrics: these functions only make
// pictures a person can check by eye.

var (
	green = color.NRGBA{40, 200, 60, 255}
	red   = color.NRGBA{230, 40, 40, 255}
)

// Line is a match to draw between point A of the left image and point B of
// the right image; Good colours it green, otherwise red, unless Color is
// set (not zero).
type Line struct {
	A, B  geom.Point
	Good  bool
	Color color.NRGBA
}

// PairOverlay puts two images side by side (dimmed, so the lines stand
// out) and draws the matches.
func PairOverlay(left, right image.Image, lines []Line) *image.NRGBA {
	lw, lh := left.Bounds().Dx(), left.Bounds().Dy()
	rw, rh := right.Bounds().Dx(), right.Bounds().Dy()
	dst := imaging.New(lw+rw, max(lh, rh), color.NRGBA{0, 0, 0, 255})
	dst = imaging.Paste(dst, imaging.AdjustBrightness(imaging.Grayscale(left), -25), image.Pt(0, 0))
	dst = imaging.Paste(dst, imaging.AdjustBrightness(imaging.Grayscale(right), -25), image.Pt(lw, 0))
	// Red first, so green lines stay visible on top.
	for _, good := range []bool{false, true} {
		for _, l := range lines {
			if l.Good != good {
				continue
			}
			c := red
			if good {
				c = green
			}
			if l.Color != (color.NRGBA{}) {
				c = l.Color
			}
			drawLine(dst, l.A.X, l.A.Y, l.B.X+float64(lw), l.B.Y, c)
			drawDisc(dst, l.A.X, l.A.Y, 2, c)
			drawDisc(dst, l.B.X+float64(lw), l.B.Y, 2, c)
		}
	}
	return dst
}

// ItemOverlay draws each point with the colour of its item (item < 0: not
// drawn), the same colour for the same item in every image.
func ItemOverlay(img image.Image, pts []geom.Point, item []int) *image.NRGBA {
	dst := imaging.AdjustBrightness(imaging.Grayscale(img), -25)
	for i, p := range pts {
		if item[i] < 0 {
			continue
		}
		c := ItemColor(item[i])
		drawDisc(dst, p.X, p.Y, 4, color.NRGBA{0, 0, 0, 255})
		drawDisc(dst, p.X, p.Y, 3, c)
	}
	return dst
}

// ItemColor gives item k a bright colour; hues step by the golden ratio so
// nearby items differ.
func ItemColor(k int) color.NRGBA {
	h := math.Mod(float64(k)*0.61803398875, 1)
	s, v := 0.85, 1.0
	if k%3 == 1 {
		v = 0.8
	}
	i := int(h * 6)
	f := h*6 - float64(i)
	p, q, t := v*(1-s), v*(1-f*s), v*(1-(1-f)*s)
	var r, g, b float64
	switch i % 6 {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	return color.NRGBA{uint8(r*255 + 0.5), uint8(g*255 + 0.5), uint8(b*255 + 0.5), 255}
}

func drawLine(dst *image.NRGBA, x0, y0, x1, y1 float64, c color.NRGBA) {
	n := int(math.Ceil(math.Max(math.Abs(x1-x0), math.Abs(y1-y0))))
	for s := 0; s <= n; s++ {
		t := 0.0
		if n > 0 {
			t = float64(s) / float64(n)
		}
		x, y := int(math.Round(x0+t*(x1-x0))), int(math.Round(y0+t*(y1-y0)))
		if image.Pt(x, y).In(dst.Rect) {
			dst.SetNRGBA(x, y, c)
		}
	}
}

func drawDisc(dst *image.NRGBA, cx, cy, r float64, c color.NRGBA) {
	x0, y0 := int(math.Floor(cx-r)), int(math.Floor(cy-r))
	for y := y0; y <= int(math.Ceil(cy+r)); y++ {
		for x := x0; x <= int(math.Ceil(cx+r)); x++ {
			if (float64(x)-cx)*(float64(x)-cx)+(float64(y)-cy)*(float64(y)-cy) <= r*r && image.Pt(x, y).In(dst.Rect) {
				dst.SetNRGBA(x, y, c)
			}
		}
	}
}
