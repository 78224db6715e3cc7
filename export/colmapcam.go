package export

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"

	// EXIF reading: small, dependency-free and widely used; it reads the
	// focal length, 35 mm equivalent and focal-plane resolution tags the
	// focal prior needs.
	"github.com/rwcarlsen/goexif/exif"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pipeline"
)

// ColmapModels lists the camera models the export writes.
const ColmapModels = "SIMPLE_PINHOLE, PINHOLE, SIMPLE_RADIAL, RADIAL, OPENCV, FULL_OPENCV"

// ColmapModelID returns COLMAP's id of a camera model the export writes.
func ColmapModelID(name string) (int, bool) {
	if !slices.Contains(strings.Split(ColmapModels, ", "), name) {
		return 0, false
	}
	return colmap.ModelID(name)
}

// ColmapCamera is one camera of COLMAP's cameras table (distortion starts
// at zero) and where its focal length came from.
type ColmapCamera struct {
	colmap.Camera
	// Source says where the focal length came from: "intrinsics",
	// "exif" (focal length and focal-plane resolution), "exif-35mm"
	// (35 mm equivalent), or "default" (1.2 × the larger side, COLMAP's
	// prior), or "self-calibration" (tracks.SelfCalibrate).
	Source string
}

// CameraOptions choose the cameras of a COLMAP export.
type CameraOptions struct {
	// Model is a COLMAP camera model name; "" means SIMPLE_RADIAL.
	Model string
	// PerImage gives every image its own camera. Otherwise images share
	// one camera per size and focal prior (one for a folder from one
	// camera).
	PerImage bool
	// Intrinsics, when known, hold every image's fx, fy, cx, cy at full
	// resolution, clearmatch's convention (pixel centres at integers).
	Intrinsics geom.Intrinsics
	// SelfCalibration, when accepted and Intrinsics are not known, starts
	// every image's camera at its focal length, principal point and radial
	// distortion (where the model has one), source "self-calibration",
	// provided the images share one size and one focal prior.
	SelfCalibration *calib.Result
}

// ColmapCameras makes the cameras of images (res.Images and res.Sets) and
// each image's camera index.
func ColmapCameras(images []pipeline.Image, sets []*features.Set, o CameraOptions) ([]ColmapCamera, []int, error) {
	if o.Model == "" {
		o.Model = "SIMPLE_RADIAL"
	}
	if _, ok := ColmapModelID(o.Model); !ok {
		return nil, nil, fmt.Errorf("camera model %q: want one of %s", o.Model, ColmapModels)
	}
	var cams []ColmapCamera
	camOf := make([]int, len(sets))
	shared := map[string]int{}
	type prior struct {
		f   float64
		src string
	}
	priors := make([]prior, len(sets))
	same := true
	if !o.Intrinsics.Known() {
		for i, s := range sets {
			path := ""
			if i < len(images) {
				path = images[i].Path
			}
			priors[i].f, priors[i].src = FocalPrior(path, s.Width, s.Height)
			same = same && priors[i] == priors[0] && s.Width == sets[0].Width && s.Height == sets[0].Height
		}
	}
	sc := o.SelfCalibration
	self := !o.Intrinsics.Known() && sc != nil && sc.Accepted && same
	for i, s := range sets {
		fx, fy, cx, cy := o.Intrinsics.Fx, o.Intrinsics.Fy, o.Intrinsics.Cx+0.5, o.Intrinsics.Cy+0.5
		src, k1 := "intrinsics", 0.0
		switch {
		case self:
			c := sc.Camera
			fx, fy, cx, cy, k1, src = c.Focal, c.Focal, c.Cx+0.5, c.Cy+0.5, c.K1, "self-calibration"
		case !o.Intrinsics.Known():
			f := priors[i].f
			src = priors[i].src
			fx, fy, cx, cy = f, f, float64(s.Width)/2, float64(s.Height)/2
		}
		cam := ColmapCamera{Camera: colmap.Camera{Model: o.Model, Width: s.Width, Height: s.Height, PriorFocal: src != "default"}, Source: src}
		cam.Params = colmapParams(o.Model, fx, fy, cx, cy, k1)
		key := fmt.Sprint(cam.Width, cam.Height, cam.Params, cam.Source)
		if c, ok := shared[key]; ok && !o.PerImage {
			camOf[i] = c
			continue
		}
		shared[key] = len(cams)
		camOf[i] = len(cams)
		cams = append(cams, cam)
	}
	return cams, camOf, nil
}

// SelfCalibratedParams are the parameters of a camera of model (one the
// export writes) started at self-calibration's camera sc: focal length,
// principal point (COLMAP's convention) and k1 where the model has it;
// false for another model.
func SelfCalibratedParams(model string, sc *calib.Result) ([]float64, bool) {
	if _, ok := ColmapModelID(model); !ok || sc == nil {
		return nil, false
	}
	c := sc.Camera
	return colmapParams(model, c.Focal, c.Focal, c.Cx+0.5, c.Cy+0.5, c.K1), true
}

func colmapParams(model string, fx, fy, cx, cy, k1 float64) []float64 {
	n, _ := colmap.ModelParams(model)
	p := make([]float64, n)
	f := (fx + fy) / 2
	switch model {
	case "PINHOLE", "OPENCV", "FULL_OPENCV":
		p[0], p[1], p[2], p[3] = fx, fy, cx, cy
	default:
		p[0], p[1], p[2] = f, cx, cy
	}
	switch model {
	case "SIMPLE_RADIAL", "RADIAL":
		p[3] = k1
	case "OPENCV", "FULL_OPENCV":
		p[4] = k1
	}
	return p
}

// FocalPrior returns an image's focal length in pixels at w × h and its
// source, as COLMAP's importer would guess it: from EXIF, the focal length
// in mm over the sensor width its focal-plane resolution implies ("exif"),
// else the 35 mm equivalent scaled by the image diagonal over the 35 mm
// frame's ("exif-35mm"), else COLMAP's default 1.2 × max(w, h)
// ("default"). Values outside 0.1–10 × max(w, h) are not trusted.
func FocalPrior(path string, w, h int) (focal float64, source string) {
	side := float64(max(w, h))
	def := 1.2 * side
	// A damaged EXIF block must cost the prior, never the run.
	defer func() {
		if recover() != nil {
			focal, source = def, "default"
		}
	}()
	if path == "" {
		return def, "default"
	}
	f, err := os.Open(path)
	if err != nil {
		return def, "default"
	}
	defer f.Close()
	x, err := exif.Decode(f)
	if err != nil {
		return def, "default"
	}
	sane := func(v float64) bool { return v > 0.1*side && v < 10*side && !math.IsInf(v, 0) }
	if mm, ok := exifRat(x, exif.FocalLength); ok {
		res, ok1 := exifRat(x, exif.FocalPlaneXResolution)
		unit, ok2 := exifInt(x, exif.FocalPlaneResolutionUnit)
		perUnit := map[int]float64{2: 25.4, 3: 10, 4: 1, 5: 0.001}[unit]
		if ok1 && ok2 && perUnit > 0 && res > 0 {
			// res pixels per unit at the EXIF's own image size.
			full := side
			if pw, ok := exifInt(x, exif.PixelXDimension); ok && pw > 0 {
				ph, _ := exifInt(x, exif.PixelYDimension)
				full = float64(max(pw, ph))
			}
			if v := mm * res / perUnit * side / full; sane(v) {
				return v, "exif"
			}
		}
	}
	if f35, ok := exifInt(x, exif.FocalLengthIn35mmFilm); ok {
		if v := float64(f35) * math.Hypot(float64(w), float64(h)) / math.Hypot(36, 24); sane(v) {
			return v, "exif-35mm"
		}
	}
	return def, "default"
}

func exifRat(x *exif.Exif, name exif.FieldName) (float64, bool) {
	t, err := x.Get(name)
	if err != nil {
		return 0, false
	}
	num, den, err := t.Rat2(0)
	if err != nil || den == 0 {
		return 0, false
	}
	return float64(num) / float64(den), true
}

func exifInt(x *exif.Exif, name exif.FieldName) (int, bool) {
	t, err := x.Get(name)
	if err != nil {
		return 0, false
	}
	v, err := t.Int(0)
	return v, err == nil
}
