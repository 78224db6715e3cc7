package imagefile

import (
	"bytes"
	"image"

	// EXIF reading: small, pure Go, no dependencies, already used for the
	// focal length prior (export); it reads JPEG's APP1 and TIFF headers.
	"github.com/rwcarlsen/goexif/exif"
)

// Orientation returns the EXIF orientation of an image file's bytes, 1 to
// 8 (1: pixels shown as stored), or 1 when the file has none or a damaged
// or out-of-range one: a bad EXIF block costs the rotation, never the
// image.
//
// clearmatch detects features in the stored pixels (as COLMAP 3.8 does,
// which ignores the tag, so images of one camera share intrinsics and the
// database matches the pixels COLMAP reads) and reports coordinates in the
// frame a viewer shows, the tag applied: tracks.json and every picture it
// draws (see DisplayPoint and Display).
func Orientation(data []byte) (o int) {
	defer func() {
		if recover() != nil {
			o = 1
		}
	}()
	x, err := exif.Decode(bytes.NewReader(data))
	if err != nil {
		return 1
	}
	tag, err := x.Get(exif.Orientation)
	if err != nil {
		return 1
	}
	v, err := tag.Int(0)
	if err != nil || v < 1 || v > 8 {
		return 1
	}
	return v
}

// swapsAxes reports whether orientation o turns the image by 90° (the shown
// width is the stored height).
func swapsAxes(o int) bool { return o >= 5 && o <= 8 }

// DisplaySize returns the size a viewer shows an image of w × h stored
// pixels with EXIF orientation o.
func DisplaySize(o, w, h int) (int, int) {
	if swapsAxes(o) {
		return h, w
	}
	return w, h
}

// DisplayPoint maps a point of the stored pixels (0-based, pixel centres
// at integers) of a w × h image with EXIF orientation o to the frame a
// viewer shows. Orientations outside 1..8 are taken as 1.
func DisplayPoint(o, w, h int, x, y float64) (float64, float64) {
	W, H := float64(w-1), float64(h-1)
	switch o {
	case 2: // mirrored left-right
		return W - x, y
	case 3: // turned 180°
		return W - x, H - y
	case 4: // mirrored top-bottom
		return x, H - y
	case 5: // transposed
		return y, x
	case 6: // turned 90° clockwise to view
		return H - y, x
	case 7: // transversed
		return H - y, W - x
	case 8: // turned 90° counter-clockwise to view
		return y, W - x
	}
	return x, y
}

// Display returns img as a viewer shows it with EXIF orientation o (img
// itself for 1). Pixel (x, y) of img lands on DisplayPoint(o, w, h, x, y).
func Display(img image.Image, o int) image.Image {
	if o < 2 || o > 8 {
		return img
	}
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	dw, dh := DisplaySize(o, w, h)
	out := image.NewNRGBA(image.Rect(0, 0, dw, dh))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			dx, dy := DisplayPoint(o, w, h, float64(x), float64(y))
			out.Set(int(dx), int(dy), img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	return out
}
