//go:build cgo

package features

/*
#include <stdlib.h>
#include "sift.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"image"
	"math"
	"runtime"
	"unsafe"

	"gocv.io/x/gocv"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/imagefile"
)

// cError converts an error message from the C++ side.
func cError(msg *C.char) error {
	if msg == nil {
		return nil
	}
	defer C.cm_free_string(msg)
	return errors.New(C.GoString(msg))
}

// OpenCV reports whether this build has OpenCV (cgo); without it every
// image function returns ErrNoOpenCV.
const OpenCV = true

// SetNumThreads caps OpenCV's own threads; call it with 1 when Go workers
// already run one extraction per core.
func SetNumThreads(n int) { C.cm_set_num_threads(C.int(n)) }

// trimMemory returns the C heap's free memory to the system. OpenCV's
// buffers come from glibc's malloc, whose per-thread arenas keep what
// extraction freed: about 0.85 GB on two workers at 1024×768, held for the
// rest of the run unless trimmed (300 photos: 1300 MB of RSS during
// matching untrimmed, 445 MB trimmed once extraction is done). Trimming
// after every image instead cost a quarter of the extraction rate.
func trimMemory() { C.cm_trim_memory() }

// decodeGray decodes image bytes through imagefile (the one decoder: header
// checked against maxPixels first, EXIF orientation ignored, truncated
// files refused) to an 8-bit grayscale Mat, which the caller closes, and
// the same pixels in Go's memory.
func decodeGray(name string, data []byte, maxPixels int64) (gocv.Mat, *image.Gray, error) {
	img, err := imagefile.Decode(name, data, maxPixels)
	if err != nil {
		return gocv.Mat{}, nil, err
	}
	g := img.Gray()
	// gocv 0.31's NewMatFromBytes wraps the Go slice without copying: clone
	// it into OpenCV's memory while g is still alive.
	view, err := gocv.NewMatFromBytes(g.Rect.Dy(), g.Rect.Dx(), gocv.MatTypeCV8U, g.Pix)
	if err != nil {
		return gocv.Mat{}, nil, fmt.Errorf("%s: %w", name, err)
	}
	m := view.Clone()
	view.Close()
	runtime.KeepAlive(g)
	return m, g, nil
}

// siftBias is OpenCV 4.6 SIFT's keypoint offset, in pixels of the image
// it detects in (see Extract).
const siftBias = 0.25

// Extract detects SIFT features in the image held in data (name is for
// messages and the Set). An image with no features gives an empty Set.
func Extract(name string, data []byte, opts Options) (*Set, error) {
	s, _, err := extractGray(name, data, opts)
	return s, err
}

// extractGray is Extract that also returns the decoded image.
func extractGray(name string, data []byte, opts Options) (*Set, *image.Gray, error) {
	if err := opts.Validate(); err != nil {
		return nil, nil, err
	}
	opts = opts.withDefaults()
	img, gray, err := decodeGray(name, data, opts.MaxPixels)
	if err != nil {
		return nil, nil, err
	}
	defer img.Close()
	set := &Set{Image: name, Width: img.Cols(), Height: img.Rows(), Orientation: imagefile.Orientation(data)}

	work := img
	scale := DetectionScale(set.Width, set.Height, opts.MaxDim)
	if scale > 1 {
		small := gocv.NewMat()
		defer small.Close()
		// At least one pixel each way: cv::resize aborts on an empty size
		// (a 1×10000 strip downscaled to 3200 would round to 0×3200).
		sz := image.Pt(max(1, int(math.Round(float64(set.Width)/scale))), max(1, int(math.Round(float64(set.Height)/scale))))
		gocv.Resize(img, &small, sz, 0, 0, gocv.InterpolationArea)
		work = small
	}
	desc := gocv.NewMat()
	defer desc.Close()
	var kps C.CMKeyPoints
	if err := cError(C.cm_sift_detect_compute(unsafe.Pointer(work.Ptr()), C.int(opts.MaxFeatures),
		C.double(opts.ContrastThreshold), C.double(opts.EdgeThreshold), &kps, unsafe.Pointer(desc.Ptr()))); err != nil {
		return nil, nil, fmt.Errorf("%s: SIFT: %w", name, err)
	}
	defer C.cm_keypoints_free(kps)
	n := int(kps.n)
	if n == 0 {
		return set, gray, nil
	}
	ck := unsafe.Slice(kps.kps, n)
	set.Keypoints = make([]Keypoint, n)
	sx, sy := float64(set.Width)/float64(work.Cols()), float64(set.Height)/float64(work.Rows())
	for i, k := range ck {
		// OpenCV 4.6's SIFT doubles the image with linear interpolation
		// and halves coordinates, which puts every keypoint a quarter
		// pixel right of and below the true position (opencv#23123; the
		// enable_precise_upscale fix came in 4.8): undo it. Then map back
		// to full resolution, per axis: OpenCV's pixel centres are at
		// integers, so x_full = (x + 0.5)·sx − 0.5.
		set.Keypoints[i] = Keypoint{
			X:     float32((float64(k.x)-siftBias+0.5)*sx - 0.5),
			Y:     float32((float64(k.y)-siftBias+0.5)*sy - 0.5),
			Size:  float32(float64(k.size) * scale),
			Angle: float32(k.angle), Response: float32(k.response),
		}
	}
	if set.Desc, err = copyDescriptors(desc, n); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if opts.RootSIFT {
		RootSIFT(set.Desc)
	}
	return set, gray, nil
}

// ExtractAt computes one SIFT descriptor at each given point, in order: the
// CMU Hotel protocol. The scale is fixed (sigma; the paper's VLFeat σ = 10
// is an OpenCV keypoint of size 2σ = 20) and the orientation is computed
// from the image (see orientation.go). The descriptor is taken from the
// scale-space octave and layer that hold σ, as VLFeat does.
func ExtractAt(name string, data []byte, pts []geom.Point, sigma float64, rootSIFT bool) (*Set, error) {
	if !(sigma > 0) {
		return nil, fmt.Errorf("features: scale %v is not positive", sigma)
	}
	img, _, err := decodeGray(name, data, 0)
	if err != nil {
		return nil, err
	}
	defer img.Close()
	w, h := img.Cols(), img.Rows()
	set := &Set{Image: name, Width: w, Height: h}
	for i, p := range pts {
		if p.X < 0 || p.Y < 0 || p.X > float64(w-1) || p.Y > float64(h-1) || math.IsNaN(p.X+p.Y) {
			return nil, fmt.Errorf("%s: point %d (%g, %g) is outside the %d×%d image", name, i, p.X, p.Y, w, h)
		}
	}
	if len(pts) == 0 {
		return set, nil
	}
	// Orientation: gradients of the image blurred to σ.
	f := gocv.NewMat()
	defer f.Close()
	img.ConvertTo(&f, gocv.MatTypeCV32F)
	blur := gocv.NewMat()
	defer blur.Close()
	gocv.GaussianBlur(f, &blur, image.Pt(0, 0), sigma, sigma, gocv.BorderReflect101)
	pix, err := blur.DataPtrFloat32()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	octave, layer := octaveOf(sigma)
	ck := make([]C.CMKeyPoint, len(pts))
	set.Keypoints = make([]Keypoint, len(pts))
	for i, p := range pts {
		ang := orientationAt(pix, w, h, p.X, p.Y, sigma)
		set.Keypoints[i] = Keypoint{X: float32(p.X), Y: float32(p.Y), Size: float32(2 * sigma), Angle: float32(ang)}
		ck[i] = C.CMKeyPoint{x: C.float(p.X), y: C.float(p.Y), size: C.float(2 * sigma), angle: C.float(ang),
			octave: C.int(octave | layer<<8 | 128<<16)}
	}
	desc := gocv.NewMat()
	defer desc.Close()
	if err := cError(C.cm_sift_compute(unsafe.Pointer(img.Ptr()), &ck[0], C.int(len(ck)), unsafe.Pointer(desc.Ptr()))); err != nil {
		return nil, fmt.Errorf("%s: SIFT: %w", name, err)
	}
	if set.Desc, err = copyDescriptors(desc, len(pts)); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if rootSIFT {
		RootSIFT(set.Desc)
	}
	return set, nil
}

// copyDescriptors copies an n × 128 CV_32F Mat into Go memory.
func copyDescriptors(desc gocv.Mat, n int) ([]float32, error) {
	if desc.Rows() != n || desc.Cols() != DescSize || desc.Type() != gocv.MatTypeCV32F {
		return nil, fmt.Errorf("unexpected descriptor matrix %dx%d type %v for %d keypoints", desc.Rows(), desc.Cols(), desc.Type(), n)
	}
	src, err := desc.DataPtrFloat32()
	if err != nil {
		return nil, err
	}
	return append([]float32(nil), src[:n*DescSize]...), nil
}
