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

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/imagefile"
)

// ErrDecode reports a file that is not a readable image (imagefile's).
var ErrDecode = imagefile.ErrDecode

// ErrTooLarge reports an image above the pixel cap (Options.MaxPixels).
var ErrTooLarge = imagefile.ErrTooLarge

// ErrNoOpenCV is returned by every function that needs OpenCV in a binary
// built without cgo (CGO_ENABLED=0).
var ErrNoOpenCV = errors.New("this binary was built without OpenCV (CGO_ENABLED=0); " +
	"rebuild it with cgo and OpenCV 4.6: apt-get install libopencv-dev pkg-config, then " +
	"CGO_ENABLED=1 go install github.com/clearmatch/clearmatch/cmd/clearmatch@latest")

// Extractor extracts features from many image files with a bounded pool of
// workers and an optional cache (ExtractFiles).
type Extractor struct {
	Options Options
	// CacheDir holds the feature cache; "" disables it.
	CacheDir string
	// Workers bounds the images processed at once; 0 means GOMAXPROCS.
	// Memory for images and OpenCV buffers is bounded by it.
	Workers int
	// Progress, if set, is called after each image (serialized, from the
	// worker goroutines) with the number done so far.
	Progress func(done, total int, name string)
	// Compact stores each set's descriptors as bytes (Set.Compact) as soon
	// as the image is done, so a folder's descriptors take a quarter of
	// the memory.
	Compact bool
	// Descriptors, when set (with CacheDir and Compact), receives the
	// descriptors of every set stored in or read from the feature cache
	// (Set.Released): it keeps the recently used ones in memory and reads
	// the others back when asked, so a folder's descriptors are never all
	// in memory at once.
	Descriptors *DescriptorCache
	// Grays, when set, receives each decoded image (not those read from
	// the feature cache), keyed by path and Options.MaxPixels, for a later
	// stage that reads the files again.
	Grays *imagefile.GrayCache
}

// Stats counts cache use in one ExtractFiles call. CacheError, when not
// nil, is the cache's first failure, after which the run went on without
// it.
type Stats struct {
	CacheHits, Extracted int64
	CacheError           error
}

// CVEstimator fits two-view models with OpenCV's calib3d and its USAC
// framework's MAGSAC++ (cv::USAC_MAGSAC; Barath et al., CVPR 2020):
// cv::findHomography, cv::findFundamentalMat and cv::findEssentialMat
// (https://docs.opencv.org/4.6.0/d9/d0c/group__calib3d.html). USAC seeds
// its random generator with a fixed state, so a call's result depends only
// on its input. It is safe for concurrent use.
type CVEstimator struct {
	// Confidence of the robust search; 0 means 0.999.
	Confidence float64
	// MaxIterations bounds the search; 0 means 10000.
	MaxIterations int
}

// CVMatcher finds nearest neighbours with OpenCV's brute-force matcher
// (BFMatcher, NORM_L2, knnMatch with k = 2): exact, and much faster than
// pure Go on SIFT descriptors. It is safe for concurrent use (each call
// has its own matcher).
type CVMatcher struct{}

// BLASMatcher finds the two nearest neighbours from matrix products: of
// 8-bit integers (AMX or AVX-512 VNNI) where the processor has them and
// the descriptors are non-negative, else of float32 on OpenBLAS
// (cblas_sgemm, tiled so that one call holds Tile × (train rows) floats of
// scratch). It returns exactly what the pure-Go pairwise.BruteForce
// returns, ties included: the products only choose candidates, and every
// candidate that the quantization and rounding bound cannot rule out is
// rescored with BruteForce's own arithmetic. Nearest2Mutual gives both
// directions from one product. It is safe for concurrent use; each call
// runs on one thread (clearmatch runs pairs on its own workers).
type BLASMatcher struct {
	// Tile is the number of query rows per float32 product; 0 means 256.
	Tile int
	// Float32 takes candidates from float32 products (OpenBLAS SGEMM)
	// even where 8-bit integer products are available; the answer is
	// the same, only the speed differs.
	Float32 bool
}

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
	Width, Height int    // of the stored pixels, where keypoints are
	// Orientation is the image file's EXIF orientation (1 to 8; 0 counts as
	// 1). Keypoints are in the stored pixels, as COLMAP reads them;
	// DisplayPoint gives the frame a viewer shows.
	Orientation int
	Keypoints   []Keypoint
	// Desc holds the descriptors, len(Keypoints) × DescSize, row-major.
	Desc []float32
	// Desc8, when not nil, holds them instead as bytes, and Desc is nil:
	// OpenCV's SIFT descriptors are integers in 0..255, so Compact stores
	// them in a quarter of the memory without loss. Floats, Descriptor
	// and Bytes read either form.
	Desc8 []uint8
	// held, when not nil, is where the descriptors went when the set was
	// released into a DescriptorCache (Desc and Desc8 are then nil).
	held *held
}

// Compact moves Desc into Desc8 when every value is an integer in
// 0..255 (always so for OpenCV's SIFT) and reports whether it did.
func (s *Set) Compact() bool {
	if s.Desc8 != nil || len(s.Desc) == 0 {
		return s.Desc8 != nil
	}
	b := make([]uint8, len(s.Desc))
	for k, v := range s.Desc {
		if !(v >= 0 && v <= 255) || v != float32(int(v)) {
			return false
		}
		b[k] = uint8(v)
	}
	s.Desc8, s.Desc = b, nil
	return true
}

// Floats returns the descriptors as float32: Desc itself, or a new slice
// from Desc8. A released set (Released) has neither: use LoadFloats.
func (s *Set) Floats() []float32 {
	if s.Desc8 == nil {
		return s.Desc
	}
	return floats(s.Desc8)
}

func floats(b []uint8) []float32 {
	f := make([]float32, len(b))
	for k, v := range b {
		f[k] = float32(v)
	}
	return f
}

// Bytes returns the descriptors as bytes, rounded and clamped to 0..255
// (COLMAP's form): Desc8 itself, or a new slice from Desc. A released set
// (Released) has neither: use DescriptorBytes.
func (s *Set) Bytes() []uint8 {
	if s.Desc8 != nil {
		return s.Desc8
	}
	b := make([]uint8, len(s.Desc))
	for k, v := range s.Desc {
		b[k] = uint8(min(255, max(0, math.Round(float64(v)))))
	}
	return b
}

// DisplayPoint returns keypoint i's position in the frame a viewer shows
// the image in (its EXIF orientation applied).
func (s *Set) DisplayPoint(i int) (x, y float64) {
	k := s.Keypoints[i]
	return imagefile.DisplayPoint(s.Orientation, s.Width, s.Height, float64(k.X), float64(k.Y))
}

// Point is keypoint k's position (pixels of the image its features were
// detected in).
func (s *Set) Point(k int) geom.Point {
	kp := s.Keypoints[k]
	return geom.Point{X: float64(kp.X), Y: float64(kp.Y)}
}

// Points returns every keypoint's position, as Point does.
func (s *Set) Points() []geom.Point {
	pts := make([]geom.Point, len(s.Keypoints))
	for k := range s.Keypoints {
		pts[k] = s.Point(k)
	}
	return pts
}

// Offsets returns the global index of each set's first feature, with the
// total last: feature k of set i is observation Offsets(sets)[i]+k, the
// numbering CLEAR's problem and the tracks use.
func Offsets(sets []*Set) []int {
	off := make([]int, len(sets)+1)
	for i, s := range sets {
		off[i+1] = off[i] + s.Len()
	}
	return off
}

// Len returns the number of features.
func (s *Set) Len() int { return len(s.Keypoints) }

// Descriptor returns descriptor i: a view into Desc, or a new slice
// from Desc8. It is not for a released set (Released).
func (s *Set) Descriptor(i int) []float32 {
	if s.Desc8 == nil {
		return s.Desc[i*DescSize : (i+1)*DescSize]
	}
	f := make([]float32, DescSize)
	for k, v := range s.Desc8[i*DescSize : (i+1)*DescSize] {
		f[k] = float32(v)
	}
	return f
}

// Options are the extraction parameters. The zero value is OpenCV's SIFT
// with its defaults.
type Options struct {
	// MaxFeatures keeps the best MaxFeatures features (0: all).
	MaxFeatures int
	// ContrastThreshold filters weak features; 0 means OpenCV's 0.04.
	ContrastThreshold float64
	// EdgeThreshold filters edge-like features; 0 means OpenCV's 10.
	EdgeThreshold float64
	// MaxPixels caps an image's declared width × height, checked before
	// decoding (0: imagefile.DefaultMaxPixels, 100 MP; negative: none).
	// It does not change the features of an image it admits.
	MaxPixels int64
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

// DetectionScale is how many full-resolution pixels one pixel of the
// image features are detected in spans: images whose larger side exceeds
// maxDim are detected downscaled to it (Options.MaxDim; 0 never).
func DetectionScale(width, height, maxDim int) float64 {
	if m := max(width, height); maxDim > 0 && m > maxDim {
		return float64(m) / float64(maxDim)
	}
	return 1
}
