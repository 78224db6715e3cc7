//go:build cgo

package pipeline

import (
	"bytes"
	"context"
	"errors"
	"github.com/clearmatch/clearmatch/geom"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunSkipsUnreadable: unreadable images are skipped (strict: the first
// is an error naming it), fewer than two usable images is an error either
// way, and an image with no features takes part.
func TestRunSkipsUnreadable(t *testing.T) {
	dir := t.TempDir()
	img := image.NewGray(image.Rect(0, 0, 64, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			img.SetGray(x, y, color.Gray{uint8((x*x + 3*y*x + y*y) % 251)})
		}
	}
	var good bytes.Buffer
	png.Encode(&good, img)
	corrupt := append(append([]byte(nil), good.Bytes()[:40]...), bytes.Repeat([]byte{0xde, 0xad}, 100)...)
	for n, b := range map[string][]byte{"good.png": good.Bytes(), "corrupt.png": corrupt, "empty.png": nil, "notes.jpg": []byte("not an image\n")} {
		if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(strict bool) (*Result, error) {
		ims, err := Images([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		opts := PaperOptions()
		opts.Features.Strict = strict
		return Run(context.Background(), ims, geom.Intrinsics{}, opts)
	}
	if _, err := run(false); !errors.Is(err, ErrTooFewImages) || !strings.Contains(err.Error(), "1 of 4") || !strings.Contains(err.Error(), "notes.jpg") {
		t.Errorf("one good image: %v", err)
	}
	if _, err := run(true); err == nil || errors.Is(err, ErrTooFewImages) || !strings.Contains(err.Error(), "corrupt.png") {
		t.Errorf("strict: %v", err)
	}
	var flat bytes.Buffer
	png.Encode(&flat, image.NewGray(image.Rect(0, 0, 50, 40)))
	os.WriteFile(filepath.Join(dir, "flat.png"), flat.Bytes(), 0o644)
	r, err := run(false)
	if err != nil || len(r.Images) != 2 || len(r.Skipped) != 3 || r.Sets[0].Image != "flat.png" || r.Sets[0].Len() != 0 {
		t.Fatalf("good + flat: %v", err)
	}
	for i, want := range []string{"corrupt.png", "empty.png", "notes.jpg"} {
		if r.Skipped[i].Name != want || r.Skipped[i].Err == nil {
			t.Errorf("skipped %d: %+v, want %s", i, r.Skipped[i], want)
		}
	}
}
