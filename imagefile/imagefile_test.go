package imagefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/internal/testenv"
)

func TestDecodePNM(t *testing.T) {
	p6 := append([]byte("P6\n# comment\n2 1\n255\n"), 255, 0, 0, 0, 0, 255)
	img, err := DecodePNM(p6)
	if err != nil {
		t.Fatal(err)
	}
	if c := color.NRGBAModel.Convert(img.At(1, 0)).(color.NRGBA); c != (color.NRGBA{0, 0, 255, 255}) {
		t.Errorf("pixel (1,0) = %v", c)
	}
	p5 := append([]byte("P5 1 2 65535\n"), 0xff, 0xff, 0, 0)
	if img, err := DecodePNM(p5); err != nil || img.Bounds().Dy() != 2 {
		t.Errorf("16-bit P5: %v", err)
	}
	for _, bad := range []string{"", "P3\n1 1\n255\n0 0 0", "P6\n2 2\n255\n\x00", "P5\n-1 1\n255\n", "P5\n1 1\n70000\n\x00"} {
		if _, err := DecodePNM([]byte(bad)); err == nil {
			t.Errorf("DecodePNM(%q) accepted", bad)
		}
	}
}

func FuzzDecodePNM(f *testing.F) {
	f.Add([]byte("P6\n2 1\n255\n\xff\x00\x00\x00\x00\xff"))
	f.Add([]byte("P5 1 1 255\n\x80"))
	f.Fuzz(func(t *testing.T, data []byte) {
		img, err := DecodePNM(data)
		if err == nil && img.Bounds().Empty() {
			t.Fatal(fmt.Sprint("empty image accepted"))
		}
	})
}

// pngHeader is a valid PNG signature and IHDR declaring w×h, 8-bit gray,
// with a valid checksum and no pixel data: 33 bytes that promise a huge
// image.
func pngHeader(w, h uint32) []byte {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
	d := b.Bytes()[:33]
	for i, v := range []uint32{w, h} {
		d[16+4*i], d[17+4*i], d[18+4*i], d[19+4*i] = byte(v>>24), byte(v>>16), byte(v>>8), byte(v)
	}
	binary.BigEndian.PutUint32(d[29:], crc32.ChecksumIEEE(d[12:29]))
	return d
}

func encoded(t *testing.T, img image.Image, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, &jpeg.Options{Quality: 95})
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDecodeRefuses(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	goodJPEG := encoded(t, img, "jpeg")
	goodPNG := encoded(t, img, "png")
	tests := []struct {
		name string
		data []byte
		max  int64
		want error
		msg  string
	}{
		{"huge.png", pngHeader(60000, 60000), 0, ErrTooLarge, "3600.0 megapixels"},
		{"cap.png", goodPNG, 1000, ErrTooLarge, "64×48"},
		{"zero.png", pngHeader(0, 10), 0, ErrDecode, ""},
		{"cut.jpg", goodJPEG[:len(goodJPEG)/2], 0, ErrDecode, ""},
		{"cut.png", goodPNG[:len(goodPNG)-20], 0, ErrDecode, ""},
		{"empty.png", nil, 0, ErrDecode, "empty"},
		{"text.png", []byte("hello, world"), 0, ErrDecode, ""},
		{"cut.ppm", []byte("P6\n4000 4000\n255\n\x00\x00"), 0, ErrDecode, ""},
	}
	for _, tc := range tests {
		_, err := Decode(tc.name, tc.data, tc.max)
		if !errors.Is(err, tc.want) || !strings.HasPrefix(err.Error(), tc.name+":") || !strings.Contains(err.Error(), tc.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line naming the file, %v, %q", tc.name, err, tc.want, tc.msg)
		}
	}
	if _, err := Decode("ok.png", goodPNG, 64*48); err != nil {
		t.Errorf("an image at the cap: %v", err)
	}
	if _, err := Decode("ok.png", pngHeader(60000, 60000), -1); errors.Is(err, ErrTooLarge) {
		t.Errorf("no cap: %v", err)
	}
}

// TestGrayConversions pins the conversions to OpenCV 4.6's (values
// computed from its formulas): libpng's rgb_to_gray for PNG, BGR2GRAY for
// PNM, and JPEG's luma.
func TestGrayConversions(t *testing.T) {
	px := [][3]uint8{{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {10, 200, 30}, {77, 77, 77}}
	pngWant := []uint8{76, 149, 29, 123, 77} // (9797 r + 19234 g + 3737 b) >> 15
	pnmWant := []uint8{76, 150, 29, 124, 77} // (4899 r + 9617 g + 1868 b + 8192) >> 14
	img := image.NewNRGBA(image.Rect(0, 0, len(px), 1))
	ppm := []byte(fmt.Sprintf("P6\n%d 1\n255\n", len(px)))
	for i, p := range px {
		img.SetNRGBA(i, 0, color.NRGBA{p[0], p[1], p[2], 255})
		ppm = append(ppm, p[0], p[1], p[2])
	}
	for _, c := range []struct {
		name string
		data []byte
		want []uint8
	}{{"a.png", encoded(t, img, "png"), pngWant}, {"a.ppm", ppm, pnmWant}} {
		m, err := Decode(c.name, c.data, 0)
		if err != nil {
			t.Fatal(err)
		}
		if g := m.Gray(); !bytes.Equal(g.Pix, c.want) {
			t.Errorf("%s: gray %v, want %v", c.name, g.Pix, c.want)
		}
	}
	m, err := Decode("a.jpg", encoded(t, img, "jpeg"), 0)
	if err != nil {
		t.Fatal(err)
	}
	y := m.Image.(*image.YCbCr)
	if g := m.Gray(); !bytes.Equal(g.Pix, y.Y[:len(px)]) {
		t.Errorf("jpeg gray %v, luma %v", g.Pix, y.Y[:len(px)])
	}
}

// TestDecodeKeepsStoredPixels: a JPEG whose EXIF says "rotate 90°" decodes
// to its stored size and pixels (features are detected there, as COLMAP
// reads them); Orientation and Display give the viewer's frame.
func TestDecodeKeepsStoredPixels(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 40, 20))
	for i := range img.Pix {
		img.Pix[i] = uint8(i)
	}
	plain := encoded(t, img, "jpeg")
	rotated := testenv.WithOrientation(plain, 6)
	a, err := Decode("plain.jpg", plain, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Decode("rotated.jpg", rotated, 0)
	if err != nil {
		t.Fatal(err)
	}
	if b.Bounds() != a.Bounds() || !bytes.Equal(a.Gray().Pix, b.Gray().Pix) {
		t.Errorf("EXIF orientation changed the decoded pixels: %v vs %v", b.Bounds(), a.Bounds())
	}
	if o := Orientation(rotated); o != 6 {
		t.Errorf("orientation %d, want 6", o)
	}
}

func FuzzDecode(f *testing.F) {
	f.Add(pngHeader(3, 2))
	f.Add([]byte("P5 2 2 255\n\x00\x01\x02\x03"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Decode("f", data, 1<<20)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f: ") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if g := m.Gray(); g.Bounds().Dx() != m.Bounds().Dx() || g.Bounds().Dy() != m.Bounds().Dy() {
			t.Fatal("gray size differs")
		}
	})
}
