package imagefile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"io"
	"strconv"
)

type pnmHeader struct {
	w, h, maxv, ch int
}

// readPNMHeader reads a binary PGM (P5) or PPM (P6) header.
func readPNMHeader(r *bufio.Reader) (pnmHeader, error) {
	var fields [4]int
	magic := make([]byte, 2)
	if _, err := io.ReadFull(r, magic); err != nil || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6') {
		return pnmHeader{}, errors.New("not a binary PGM/PPM (P5/P6) image")
	}
	for k := 1; k < 4; k++ {
		tok, err := pnmToken(r)
		if err != nil {
			return pnmHeader{}, err
		}
		v, err := strconv.Atoi(tok)
		if err != nil || v <= 0 || v > 1<<20 {
			return pnmHeader{}, fmt.Errorf("bad PNM header value %q", tok)
		}
		fields[k] = v
	}
	h := pnmHeader{w: fields[1], h: fields[2], maxv: fields[3], ch: 1}
	if h.maxv > 65535 {
		return pnmHeader{}, fmt.Errorf("bad PNM maximum value %d", h.maxv)
	}
	if magic[1] == '6' {
		h.ch = 3
	}
	return h, nil
}

func decodePNMConfig(r io.Reader) (image.Config, error) {
	h, err := readPNMHeader(bufio.NewReader(r))
	if err != nil {
		return image.Config{}, err
	}
	return image.Config{ColorModel: color.NRGBAModel, Width: h.w, Height: h.h}, nil
}

func decodePNMReader(r io.Reader) (image.Image, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return DecodePNM(data)
}

// DecodePNM decodes a binary PGM (P5) or PPM (P6) image with a maximum value
// up to 65535. Go's image packages read neither.
func DecodePNM(data []byte) (image.Image, error) {
	r := bufio.NewReader(bytes.NewReader(data))
	hd, err := readPNMHeader(r)
	if err != nil {
		return nil, err
	}
	w, h, maxv, ch := hd.w, hd.h, hd.maxv, hd.ch
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
