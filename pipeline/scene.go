package pipeline

import (
	"fmt"
	"math"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/imagefile"
)

// Scene is what every stage after extraction reads and none changes: the
// images, each image's features, the scale they were detected at and the
// camera. Extract makes one from image files; NewScene from feature sets
// made elsewhere (a benchmark's, a COLMAP database's).
type Scene struct {
	Images []Image
	// Sets are the features of each image; keypoints are in
	// full-resolution pixels.
	Sets []*features.Set
	// Scale is, per image, how many full-resolution pixels one pixel of
	// the image its features were detected in spans (1 unless
	// downscaled): verification's thresholds are in detection pixels.
	Scale []float64
	// Camera, when known, is every image's at full resolution: pairs are
	// then verified with essential matrices. Self-calibration does not
	// change it; it returns a camera of its own (Result.SelfCalibration).
	Camera geom.Intrinsics
	// MaxPixels is the most pixels (width × height) a stage that reads
	// the image files admits (features.Options.MaxPixels; 0:
	// imagefile.DefaultMaxPixels); extraction read them so.
	MaxPixels int64

	// grays are the images extraction decoded last, which refinement
	// reads instead of the files (CacheOptions.ImageMemory).
	grays *imagefile.GrayCache
}

// NewScene is the scene of images and their feature sets, detected with
// their larger side at most maxDim (features.Options.MaxDim; 0: at full
// resolution), camera unknown.
func NewScene(images []Image, sets []*features.Set, maxDim int) (*Scene, error) {
	if len(images) != len(sets) {
		return nil, fmt.Errorf("pipeline: %d images and %d feature sets", len(images), len(sets))
	}
	s := &Scene{Images: images, Sets: sets, Scale: make([]float64, len(sets))}
	for i, set := range sets {
		s.Scale[i] = features.DetectionScale(set.Width, set.Height, maxDim)
	}
	return s, nil
}

// Offsets returns the global index of each image's first observation,
// with the total last.
func (s *Scene) Offsets() []int { return features.Offsets(s.Sets) }

// check reports a scene whose parts do not fit together.
func (s *Scene) check() error {
	if len(s.Images) != len(s.Sets) || len(s.Scale) != len(s.Sets) {
		return fmt.Errorf("pipeline: %d images, %d feature sets and %d scales", len(s.Images), len(s.Sets), len(s.Scale))
	}
	for i, sc := range s.Scale {
		if !(sc >= 1) || math.IsInf(sc, 0) {
			return fmt.Errorf("pipeline: image %d: detection scale %v is not a finite number of at least 1", i, sc)
		}
	}
	return nil
}
