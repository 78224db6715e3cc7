package imagefile

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"github.com/clearmatch/clearmatch/internal/testenv"
)

// TestOrientation: the EXIF tag is read from a JPEG; none, a damaged
// block or an out-of-range value is 1.
func TestOrientation(t *testing.T) {
	var b bytes.Buffer
	jpeg.Encode(&b, image.NewGray(image.Rect(0, 0, 8, 4)), nil)
	for o := uint16(1); o <= 8; o++ {
		if got := Orientation(testenv.WithOrientation(b.Bytes(), o)); got != int(o) {
			t.Errorf("orientation %d read as %d", o, got)
		}
	}
	damaged := testenv.WithOrientation(b.Bytes(), 6)
	copy(damaged[10:], "XX") // the TIFF byte order mark
	for name, data := range map[string][]byte{"no EXIF": b.Bytes(), "9": testenv.WithOrientation(b.Bytes(), 9), "damaged": damaged, "empty": nil} {
		if got := Orientation(data); got != 1 {
			t.Errorf("%s: orientation %d, want 1", name, got)
		}
	}
}

// TestDisplay: every orientation puts each stored pixel where
// DisplayPoint says, in an image of DisplaySize; orientation 6 (a phone
// held upright) turns a landscape buffer into a portrait picture whose top
// row is the stored first column.
func TestDisplay(t *testing.T) {
	const w, h = 5, 3
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(10 * (i + 1))
	}
	for o := 1; o <= 8; o++ {
		d := Display(img, o)
		dw, dh := DisplaySize(o, w, h)
		if b := d.Bounds(); b.Dx() != dw || b.Dy() != dh {
			t.Fatalf("orientation %d: %v, want %d×%d", o, b, dw, dh)
		}
		seen := map[[2]int]bool{}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				fx, fy := DisplayPoint(o, w, h, float64(x), float64(y))
				dx, dy := int(fx), int(fy)
				seen[[2]int{dx, dy}] = true
				if got := color.GrayModel.Convert(d.At(dx, dy)).(color.Gray).Y; got != img.GrayAt(x, y).Y {
					t.Errorf("orientation %d: stored (%d,%d) shows %d at (%d,%d), want %d", o, x, y, got, dx, dy, img.GrayAt(x, y).Y)
				}
			}
		}
		if len(seen) != w*h {
			t.Errorf("orientation %d maps %d pixels onto %d places", o, w*h, len(seen))
		}
	}
	// Orientation 6: shown 3 wide and 5 high; the stored first row is the
	// right-hand column, the stored first column the top row.
	if x, y := DisplayPoint(6, w, h, 0, 0); x != 2 || y != 0 {
		t.Errorf("orientation 6: stored (0,0) shown at (%v,%v), want (2,0)", x, y)
	}
	if x, y := DisplayPoint(6, w, h, 4, 2); x != 0 || y != 4 {
		t.Errorf("orientation 6: stored (4,2) shown at (%v,%v), want (0,4)", x, y)
	}
}
