package pipeline

import (
	"math"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/features"
)

// sceneOf is the scene of images and sets as extraction with o makes it.
func sceneOf(images []Image, sets []*features.Set, o Options) *Scene {
	s, err := NewScene(images, sets, o.Features.Extraction().MaxDim)
	if err != nil {
		panic(err)
	}
	return s
}

func TestNewScene(t *testing.T) {
	sets := []*features.Set{{Width: 6400, Height: 4800}, {Width: 3200, Height: 100}, {Width: 10, Height: 20}}
	images := []Image{{Name: "a"}, {Name: "b"}, {Name: "c"}}
	for _, tc := range []struct {
		maxDim int
		want   []float64
	}{
		{0, []float64{1, 1, 1}},
		{3200, []float64{2, 1, 1}},
		{1600, []float64{4, 2, 1}},
	} {
		s, err := NewScene(images, sets, tc.maxDim)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range tc.want {
			if s.Scale[i] != w {
				t.Errorf("maxDim %d: image %d scale %v, want %v", tc.maxDim, i, s.Scale[i], w)
			}
		}
	}
	if _, err := NewScene(images[:2], sets, 0); err == nil {
		t.Error("2 images and 3 sets: no error")
	}
}

func TestSceneCheck(t *testing.T) {
	sets := []*features.Set{{Width: 10, Height: 10}, {Width: 10, Height: 10}}
	images := []Image{{Name: "a"}, {Name: "b"}}
	for _, tc := range []struct {
		scale []float64
		want  string
	}{
		{[]float64{1, 2}, ""},
		{[]float64{1}, "2 images, 2 feature sets and 1 scales"},
		{[]float64{1, 0.5}, "image 1: detection scale 0.5"},
		{[]float64{1, math.Inf(1)}, "image 1: detection scale +Inf"},
	} {
		err := (&Scene{Images: images, Sets: sets, Scale: tc.scale}).check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("scale %v: %v, want %q", tc.scale, err, tc.want)
		}
	}
}
