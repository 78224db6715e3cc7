package eval

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/disintegration/imaging"
)

// LoadImage reads an image for drawing: PNM (P5/P6, which Go's image
// packages do not read) here, everything else through imaging (PNG, JPEG,
// GIF, BMP, TIFF).
func LoadImage(path string) (image.Image, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".ppm", ".pgm", ".pnm":
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		img, err := DecodePNM(data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return img, nil
	}
	return imaging.Open(path)
}

// DecodePNM decodes a binary PGM (P5) or PPM (P6) image with a maximum value
// up to 65535.
func DecodePNM(data []byte) (image.Image, error) {
	r := bufio.NewReader(bytes.NewReader(data))
	var fields [4]int
	magic := make([]byte, 2)
	if _, err := r.Read(magic); err != nil || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6') {
		return nil, errors.New("not a binary PGM/PPM (P5/P6) image")
	}
	for k := 1; k < 4; k++ {
		tok, err := pnmToken(r)
		if err != nil {
			return nil, err
		}
		v, err := strconv.Atoi(tok)
		if err != nil || v <= 0 || v > 1<<20 {
			return nil, fmt.Errorf("bad PNM header value %q", tok)
		}
		fields[k] = v
	}
	w, h, maxv := fields[1], fields[2], fields[3]
	if maxv > 65535 {
		return nil, fmt.Errorf("bad PNM maximum value %d", maxv)
	}
	ch := 1
	if magic[1] == '6' {
		ch = 3
	}
	bps := 1
	if maxv > 255 {
		bps = 2
	}
	need := w * h * ch * bps
	if need > len(data) {
		return nil, fmt.Errorf("PNM data truncated: want %d bytes", need)
	}
	pix := make([]byte, need)
	if _, err := io.ReadFull(r, pix); err != nil {
		return nil, fmt.Errorf("PNM data truncated: want %d bytes", need)
	}
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < w*h; i++ {
		var c [3]uint8
		for k := 0; k < ch; k++ {
			var v int
			if bps == 1 {
				v = int(pix[(i*ch + k)])
			} else {
				v = int(pix[2*(i*ch+k)])<<8 | int(pix[2*(i*ch+k)+1])
			}
			c[k] = uint8(min(v, maxv) * 255 / maxv)
		}
		if ch == 1 {
			c[1], c[2] = c[0], c[0]
		}
		img.SetNRGBA(i%w, i/w, color.NRGBA{c[0], c[1], c[2], 255})
	}
	return img, nil
}

// pnmToken reads one header token, skipping white space and # comments, and
// consumes the single white-space byte after it.
func pnmToken(r *bufio.Reader) (string, error) {
	var tok []byte
	for {
		b, err := r.ReadByte()
		if err != nil {
			return "", errors.New("PNM header truncated")
		}
		switch {
		case b == '#' && len(tok) == 0:
			if _, err := r.ReadString('\n'); err != nil {
				return "", errors.New("PNM header truncated")
			}
		case b == ' ' || b == '\t' || b == '\n' || b == '\r':
			if len(tok) > 0 {
				return string(tok), nil
			}
		default:
			if len(tok) > 16 {
				return "", errors.New("bad PNM header")
			}
			tok = append(tok, b)
		}
	}
}
