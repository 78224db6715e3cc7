// Package imagefile is clearmatch's one way of reading image files, for
// feature extraction and for drawing alike, in pure Go.
//
// The rules:
//   - the header is read first; an image of more pixels than the cap is
//     refused before any pixel memory is allocated;
//   - Decode gives the pixels as stored, EXIF orientation not applied:
//     features are detected there, as COLMAP 3.8 reads images (so images
//     of one camera share intrinsics and database.db fits the pixels
//     COLMAP reads); Orientation, DisplayPoint and Display give the frame
//     a viewer shows, in which clearmatch reports coordinates and draws;
//   - a truncated or damaged file is an error (never a half-decoded image),
//     and every error names the file.
//
// Formats: PNG, JPEG, GIF, BMP, TIFF, WebP and binary PGM/PPM. Gray converts
// to 8-bit grayscale the way OpenCV's IMREAD_GRAYSCALE does for each format,
// so features match those OpenCV would find on its own decoding.
package imagefile

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"os"

	_ "image/gif"  // GIF
	_ "image/jpeg" // JPEG
	_ "image/png"  // PNG

	_ "golang.org/x/image/bmp"  // BMP
	_ "golang.org/x/image/tiff" // TIFF
	_ "golang.org/x/image/webp" // WebP
)

func init() {
	image.RegisterFormat("pnm", "P5", decodePNMReader, decodePNMConfig)
	image.RegisterFormat("pnm", "P6", decodePNMReader, decodePNMConfig)
}

// ErrDecode reports a file that is not a readable image.
var ErrDecode = errors.New("not a readable image")

// ErrTooLarge reports an image with more pixels than allowed.
var ErrTooLarge = errors.New("image too large")

// DefaultMaxPixels is the default cap on an image's pixels: 100 megapixels
// (decoding one takes up to 400 MB).
const DefaultMaxPixels = 100_000_000

// Image is a decoded image and the format it was read from.
type Image struct {
	image.Image
	Format string // "png", "jpeg", "pnm", "gif", "bmp", "tiff", "webp"
}

// Decode decodes data. maxPixels caps width × height (0: DefaultMaxPixels,
// negative: no cap). name is for messages.
func Decode(name string, data []byte, maxPixels int64) (Image, error) {
	if len(data) == 0 {
		return Image{}, fmt.Errorf("%s: empty file: %w", name, ErrDecode)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return Image{}, fmt.Errorf("%s: %w (%v)", name, ErrDecode, err)
	}
	if err := CheckSize(name, cfg.Width, cfg.Height, maxPixels); err != nil {
		return Image{}, err
	}
	img, _, err := decodeSafely(data)
	if err != nil {
		return Image{}, fmt.Errorf("%s: %w (%v)", name, ErrDecode, err)
	}
	if b := img.Bounds(); b.Dx() != cfg.Width || b.Dy() != cfg.Height {
		return Image{}, fmt.Errorf("%s: %w (header says %d×%d, pixels are %d×%d)", name, ErrDecode, cfg.Width, cfg.Height, b.Dx(), b.Dy())
	}
	return Image{img, format}, nil
}

// CheckSize refuses empty images and those above maxPixels (0: the
// default; negative: no cap).
func CheckSize(name string, w, h int, maxPixels int64) error {
	if maxPixels == 0 {
		maxPixels = DefaultMaxPixels
	}
	if w <= 0 || h <= 0 {
		return fmt.Errorf("%s: %w (%d×%d pixels)", name, ErrDecode, w, h)
	}
	if maxPixels > 0 && int64(w)*int64(h) > maxPixels {
		return fmt.Errorf("%s: %d×%d = %.1f megapixels is above the cap of %.1f (-max-pixels): %w",
			name, w, h, float64(w)*float64(h)/1e6, float64(maxPixels)/1e6, ErrTooLarge)
	}
	return nil
}

// decodeSafely turns a decoder's panic on hostile input into an error.
func decodeSafely(data []byte) (img image.Image, format string, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("decoder failed: %v", r)
		}
	}()
	return image.Decode(bytes.NewReader(data))
}

// Open reads and decodes the file at path (see Decode).
func Open(path string, maxPixels int64) (Image, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Image{}, err
	}
	return Decode(path, data, maxPixels)
}

// Gray returns the image as 8-bit grayscale, converted as OpenCV 4.6's
// IMREAD_GRAYSCALE converts the same file: JPEG's luma as decoded; PNG
// through libpng's rgb_to_gray (0.299, 0.587, truncated, equal channels
// kept, 16 bits cut to the high byte); every other format with OpenCV's
// fixed-point BGR2GRAY (4899, 9617, 1868 over 2^14, rounded).
func (m Image) Gray() *image.Gray {
	b := m.Bounds()
	out := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	switch src := m.Image.(type) {
	case *image.Gray:
		for y := 0; y < b.Dy(); y++ {
			copy(out.Pix[y*out.Stride:y*out.Stride+b.Dx()], src.Pix[(y)*src.Stride:(y)*src.Stride+b.Dx()])
		}
		return out
	case *image.YCbCr:
		for y := 0; y < b.Dy(); y++ {
			copy(out.Pix[y*out.Stride:y*out.Stride+b.Dx()], src.Y[y*src.YStride:y*src.YStride+b.Dx()])
		}
		return out
	}
	conv := opencvGray
	if m.Format == "png" {
		conv = libpngGray
	}
	// 8-bit RGB(A) as stored: alpha is dropped, as OpenCV drops it.
	var pix []uint8
	var stride int
	switch src := m.Image.(type) {
	case *image.NRGBA:
		pix, stride = src.Pix, src.Stride
	case *image.RGBA:
		if src.Opaque() {
			pix, stride = src.Pix, src.Stride
		}
	}
	if pix != nil {
		for y := 0; y < b.Dy(); y++ {
			row, in := out.Pix[y*out.Stride:], pix[y*stride:]
			for x := 0; x < b.Dx(); x++ {
				row[x] = conv(uint32(in[4*x]), uint32(in[4*x+1]), uint32(in[4*x+2]))
			}
		}
		return out
	}
	for y := 0; y < b.Dy(); y++ {
		row := out.Pix[y*out.Stride:]
		for x := 0; x < b.Dx(); x++ {
			c := color.NRGBA64Model.Convert(m.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA64)
			row[x] = conv(uint32(c.R>>8), uint32(c.G>>8), uint32(c.B>>8))
		}
	}
	return out
}

func opencvGray(r, g, b uint32) uint8 {
	return uint8((r*4899 + g*9617 + b*1868 + 1<<13) >> 14)
}

func libpngGray(r, g, b uint32) uint8 {
	if r == g && r == b {
		return uint8(r)
	}
	return uint8((r*9797 + g*19234 + b*3737) >> 15)
}
