package colmap

import (
	"fmt"
	"math"
)

// models are COLMAP's camera models by id: name, number of parameters,
// and whether they start f, cx, cy (one focal length) rather than fx, fy,
// cx, cy.
var models = []struct {
	name   string
	params int
	single bool
}{
	{"SIMPLE_PINHOLE", 3, true}, {"PINHOLE", 4, false}, {"SIMPLE_RADIAL", 4, true},
	{"RADIAL", 5, true}, {"OPENCV", 8, false}, {"OPENCV_FISHEYE", 8, false},
	{"FULL_OPENCV", 12, false}, {"FOV", 5, false}, {"SIMPLE_RADIAL_FISHEYE", 4, true},
	{"RADIAL_FISHEYE", 5, true}, {"THIN_PRISM_FISHEYE", 12, false},
}

// ModelID returns COLMAP's id of a camera model name.
func ModelID(name string) (int, bool) {
	for id, m := range models {
		if m.name == name {
			return id, true
		}
	}
	return 0, false
}

// ModelParams returns the number of parameters of a camera model.
func ModelParams(name string) (int, bool) {
	id, ok := ModelID(name)
	if !ok {
		return 0, false
	}
	return models[id].params, true
}

// Camera is one camera of a database's cameras table.
type Camera struct {
	Model         string
	Width, Height int
	// Params in the model's order, the principal point in COLMAP's pixel
	// convention.
	Params []float64
	// PriorFocal: the focal length is known, not guessed (COLMAP then
	// trusts it from the start).
	PriorFocal bool
}

// Pinhole returns the camera's pinhole part (its model's focal lengths and
// principal point, COLMAP's convention), false when its parameters do not
// fit its model.
func (c Camera) Pinhole() (Intrinsics, bool) {
	id, ok := ModelID(c.Model)
	if !ok || c.Width <= 0 || c.Height <= 0 {
		return Intrinsics{}, false
	}
	in, err := newIntrinsics(id, uint64(c.Width), uint64(c.Height), c.Params)
	return in, err == nil
}

// Intrinsics is a reconstructed camera's pinhole part in COLMAP's pixel
// convention: focal lengths and principal point in pixels of a Width ×
// Height image. Models with one focal length have Fx = Fy; distortion is
// left out.
type Intrinsics struct {
	Model          string
	Width, Height  int
	Fx, Fy, Cx, Cy float64
}

// newIntrinsics checks a camera's size and parameters against its model
// (an index into models).
func newIntrinsics(model int, w, h uint64, p []float64) (Intrinsics, error) {
	cm := models[model]
	if len(p) != cm.params {
		return Intrinsics{}, fmt.Errorf("%s has %d parameters, got %d", cm.name, cm.params, len(p))
	}
	if w == 0 || h == 0 || w > 1<<20 || h > 1<<20 {
		return Intrinsics{}, fmt.Errorf("image size %d×%d is not valid", w, h)
	}
	in := Intrinsics{Model: cm.name, Width: int(w), Height: int(h)}
	if cm.single {
		in.Fx, in.Fy, in.Cx, in.Cy = p[0], p[0], p[1], p[2]
	} else {
		in.Fx, in.Fy, in.Cx, in.Cy = p[0], p[1], p[2], p[3]
	}
	for _, v := range []float64{in.Fx, in.Fy, in.Cx, in.Cy} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return Intrinsics{}, fmt.Errorf("parameter %g is not finite", v)
		}
	}
	return in, nil
}
