package datasets

import (
	"math"
	"testing"
)

func TestHomographyFrom(t *testing.T) {
	src := [4][2]float64{{0, 0}, {10, 0}, {10, 10}, {0, 10}}
	dst := [4][2]float64{{1, 2}, {12, 1}, {13, 14}, {-1, 11}}
	h, err := homographyFrom(src, dst)
	if err != nil {
		t.Fatal(err)
	}
	for i := range src {
		x, y, _ := h.Apply(src[i][0], src[i][1])
		if math.Hypot(x-dst[i][0], y-dst[i][1]) > 1e-9 {
			t.Errorf("corner %d maps to (%v, %v), want %v", i, x, y, dst[i])
		}
	}
}

func TestScene(t *testing.T) {
	s, err := NewScene(SceneConfig{Views: 3, Width: 160, Height: 120, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Views) != 3 || s.Views[0].Bounds().Dx() != 160 {
		t.Fatalf("%d views", len(s.Views))
	}
	// H(i→j) composes through the texture: H(0→2) = H(1→2)·H(0→1).
	x, y, _ := s.H(0, 2).Apply(50, 40)
	xa, ya, _ := s.H(0, 1).Apply(50, 40)
	x2, y2, _ := s.H(1, 2).Apply(xa, ya)
	if math.Hypot(x-x2, y-y2) > 1e-6 {
		t.Errorf("homographies do not compose")
	}
	// Deterministic for a seed.
	s2, _ := NewScene(SceneConfig{Views: 3, Width: 160, Height: 120, Seed: 4})
	for i := range s.Views[2].Pix {
		if s.Views[2].Pix[i] != s2.Views[2].Pix[i] {
			t.Fatal("same seed, different images")
		}
	}
	if _, err := NewScene(SceneConfig{Views: 1}); err == nil {
		t.Error("one view accepted")
	}
}
