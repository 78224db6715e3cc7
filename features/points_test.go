package features

import (
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

func TestSetPoints(t *testing.T) {
	s := &Set{Keypoints: []Keypoint{{X: 1.5, Y: 2}, {X: -0.25, Y: 1e3}}}
	want := []geom.Point{{X: 1.5, Y: 2}, {X: -0.25, Y: 1e3}}
	got := s.Points()
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || s.Point(1) != want[1] {
		t.Errorf("Points %v, want %v", got, want)
	}
	if p := (&Set{}).Points(); len(p) != 0 {
		t.Errorf("no keypoints: %v", p)
	}
}

func TestOffsets(t *testing.T) {
	sets := []*Set{{Keypoints: make([]Keypoint, 3)}, {}, {Keypoints: make([]Keypoint, 2)}}
	if got := Offsets(sets); len(got) != 4 || got[1] != 3 || got[2] != 3 || got[3] != 5 {
		t.Errorf("Offsets %v, want [0 3 3 5]", got)
	}
}
