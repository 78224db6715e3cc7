// Package features extracts SIFT keypoints and descriptors from images with
// OpenCV (through gocv) and returns them as plain Go values: a Set per
// image. The types, the feature cache and the orientation assignment are
// pure Go; extraction and the OpenCV matcher need cgo (files tagged cgo).
//
// Every gocv Mat the package creates is closed before a function returns;
// tests check this with gocv's MatProfile (go test -tags matprofile).
package features

import (
	"errors"
	"math"

	"github.com/clearmatch/clearmatch/datasets"
)

// Point is a position in 0-based pixel coordinates.
type Point = datasets.Point

// DescSize is the length of a SIFT descriptor.
const DescSize = 128

// Keypoint is one feature: its position in full-resolution pixel
// coordinates (0-based, x right, y down), diameter, orientation in degrees
// (OpenCV's convention: clockwise in image coordinates) and detector
// response.
type Keypoint struct {
	X, Y, Size, Angle, Response float32
}

// Set holds the features of one image.
type Set struct {
	Image         string // the image's name, as given to the extractor
	Width, Height int
	Keypoints     []Keypoint
	// Desc holds the descriptors, len(Keypoints) × DescSize, row-major.
	Desc []float32
}

// Len returns the number of features.
func (s *Set) Len() int { return len(s.Keypoints) }

// Descriptor returns descriptor i (a view into Desc).
func (s *Set) Descriptor(i int) []float32 { return s.Desc[i*DescSize : (i+1)*DescSize] }

// Options are the extraction parameters. The zero value is OpenCV's SIFT
// with its defaults.
type Options struct {
	// MaxFeatures keeps the best MaxFeatures features (0: all).
	MaxFeatures int
	// ContrastThreshold filters weak features; 0 means OpenCV's 0.04.
	ContrastThreshold float64
	// EdgeThreshold filters edge-like features; 0 means OpenCV's 10.
	EdgeThreshold float64
	// MaxDim, when positive, downscales images whose larger side exceeds it
	// before detection; keypoints are mapped back to full resolution.
	MaxDim int
	// RootSIFT L1-normalizes each descriptor and takes square roots
	// (Arandjelović and Zisserman, 2012), so Euclidean distance compares
	// like the Hellinger kernel.
	RootSIFT bool
}

func (o Options) withDefaults() Options {
	if o.ContrastThreshold == 0 {
		o.ContrastThreshold = 0.04
	}
	if o.EdgeThreshold == 0 {
		o.EdgeThreshold = 10
	}
	return o
}

// Validate reports impossible options.
func (o Options) Validate() error {
	switch {
	case o.MaxFeatures < 0:
		return errors.New("features: negative MaxFeatures")
	case o.ContrastThreshold < 0 || math.IsNaN(o.ContrastThreshold):
		return errors.New("features: negative ContrastThreshold")
	case o.EdgeThreshold < 0 || math.IsNaN(o.EdgeThreshold):
		return errors.New("features: negative EdgeThreshold")
	case o.MaxDim < 0:
		return errors.New("features: negative MaxDim")
	}
	return nil
}

// RootSIFT turns SIFT descriptors (n × DescSize, non-negative) into
// RootSIFT in place.
func RootSIFT(desc []float32) {
	for i := 0; i+DescSize <= len(desc); i += DescSize {
		d := desc[i : i+DescSize]
		var sum float32
		for _, v := range d {
			sum += v
		}
		if sum == 0 {
			continue
		}
		for j, v := range d {
			d[j] = float32(math.Sqrt(float64(v / sum)))
		}
	}
}
