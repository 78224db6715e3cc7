package datasets

import (
	"bytes"
	"math"
	"testing"
)

func TestStrip(t *testing.T) {
	s, err := NewStrip(StripConfig{Views: 30, Width: 160, Height: 120, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if s.Views() != 30 {
		t.Fatalf("%d views", s.Views())
	}
	// H(i, j) and H(j, i) are inverses.
	for _, p := range [][2]int{{0, 1}, {3, 7}, {10, 29}} {
		a, b := s.H(p[0], p[1]), s.H(p[1], p[0])
		x, y, _ := a.Apply(37, 51)
		x, y, _ = b.Apply(x, y)
		if math.Hypot(x-37, y-51) > 1e-6 {
			t.Errorf("H(%d,%d) then H(%d,%d) moves (37,51) to (%v,%v)", p[0], p[1], p[1], p[0], x, y)
		}
	}
	// Neighbours overlap much, views three widths apart not at all.
	if o := s.Overlap(5, 6); o < 0.5 {
		t.Errorf("neighbours overlap %v", o)
	}
	if o := s.Overlap(5, 5+18); o != 0 {
		t.Errorf("views 18 steps (3 widths) apart overlap %v", o)
	}
	// Rendering is deterministic and differs between views.
	a, b, c := s.Render(3), s.Render(3), s.Render(4)
	if !bytes.Equal(a.Pix, b.Pix) || bytes.Equal(a.Pix, c.Pix) {
		t.Error("render not deterministic, or two views alike")
	}
	var mean float64
	for _, v := range a.Pix {
		mean += float64(v)
	}
	if mean /= float64(len(a.Pix)); mean < 40 || mean > 215 {
		t.Errorf("mean grey %v", mean)
	}
	if _, err := NewStrip(StripConfig{Views: 1}); err == nil {
		t.Error("one view: no error")
	}
}
