package eval

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

var update = flag.Bool("update", false, "rewrite the golden images in testdata/")

// scene is a small synthetic image: a gradient with a few blocks.
func scene(w, h, shift int) image.Image {
	img := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := (x + shift) * 255 / (w + 10)
			if (x/8+y/8)%3 == 0 {
				v = 255 - v
			}
			img.SetGray(x, y, color.Gray{uint8(v)})
		}
	}
	return img
}

// checkGolden compares img with testdata/name by decoded pixels; -update
// rewrites it. On a mismatch the actual image is written beside it
// (ignored by testdata/.gitignore).
func checkGolden(t *testing.T, name string, img image.Image) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		var b bytes.Buffer
		png.Encode(&b, img)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	defer f.Close()
	want, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if want.Bounds() != img.Bounds() {
		t.Fatalf("%s: size %v, want %v", name, img.Bounds(), want.Bounds())
	}
	diff := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r1, g1, b1, a1 := img.At(x, y).RGBA()
			r2, g2, b2, a2 := want.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				diff++
			}
		}
	}
	if diff > 0 {
		var b bytes.Buffer
		png.Encode(&b, img)
		os.WriteFile(filepath.Join("testdata", "got_"+name), b.Bytes(), 0o644)
		t.Errorf("%s: %d pixels differ (actual written to testdata/got_%s)", name, diff, name)
	}
}

func TestPairOverlayGolden(t *testing.T) {
	lines := []Line{
		{A: geom.Point{X: 10, Y: 10}, B: geom.Point{X: 14, Y: 12}, Good: true},
		{A: geom.Point{X: 40, Y: 30}, B: geom.Point{X: 44, Y: 31}, Good: true},
		{A: geom.Point{X: 20, Y: 40}, B: geom.Point{X: 50, Y: 5}, Good: false},
	}
	checkGolden(t, "pair_golden.png", PairOverlay(scene(64, 48, 0), scene(64, 48, 4), lines))
}

func TestItemOverlayGolden(t *testing.T) {
	pts := []geom.Point{{X: 8, Y: 8}, {X: 30, Y: 20}, {X: 50, Y: 40}, {X: 12, Y: 36}}
	checkGolden(t, "items_golden.png", ItemOverlay(scene(64, 48, 0), pts, []int{0, 1, 2, -1}))
}
