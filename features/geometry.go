//go:build cgo

package features

/*
#include <stdlib.h>
#include "geom.h"
#include "sift.h"
*/
import "C"

import (
	"fmt"
	"unsafe"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

var _ pairwise.Estimator = CVEstimator{}

// Estimate implements pairwise.Estimator.
func (e CVEstimator) Estimate(kind pairwise.ModelKind, a, b []geom.Point, threshold float64) ([9]float64, []bool, bool, error) {
	var model [9]float64
	n := len(a)
	var ck C.int
	switch kind {
	case pairwise.Homography:
		ck = C.CM_HOMOGRAPHY
	case pairwise.Fundamental:
		ck = C.CM_FUNDAMENTAL
	case pairwise.Essential:
		ck = C.CM_ESSENTIAL
	default:
		return model, nil, false, fmt.Errorf("features: no estimator for model %v", kind)
	}
	minPts := map[pairwise.ModelKind]int{pairwise.Homography: 4, pairwise.Fundamental: 8, pairwise.Essential: 5}[kind]
	if len(b) != n || n < minPts || !(threshold > 0) {
		return model, make([]bool, n), false, nil
	}
	conf, iters := e.Confidence, e.MaxIterations
	if conf == 0 {
		conf = 0.999
	}
	if iters == 0 {
		iters = 10000
	}
	// One C allocation holds both point arrays, the mask and the model, so
	// no Go pointer is kept by C.
	buf := C.malloc(C.size_t(n*2*2*8 + 9*8 + n))
	if buf == nil {
		return model, nil, false, fmt.Errorf("features: out of memory for %d correspondences", n)
	}
	defer C.free(buf)
	pa := unsafe.Slice((*float64)(buf), 4*n+9)
	for k := range a {
		pa[2*k], pa[2*k+1] = a[k].X, a[k].Y
		pa[2*n+2*k], pa[2*n+2*k+1] = b[k].X, b[k].Y
	}
	mdl := pa[4*n:]
	mask := unsafe.Slice((*byte)(unsafe.Add(buf, (4*n+9)*8)), n)
	var found C.int
	if err := cError(C.cm_find_model(ck, (*C.double)(buf), (*C.double)(unsafe.Pointer(&pa[2*n])), C.int(n),
		C.double(threshold), C.double(conf), C.int(iters), (*C.double)(unsafe.Pointer(&mdl[0])),
		(*C.uchar)(unsafe.Pointer(&mask[0])), &found)); err != nil {
		return model, nil, false, fmt.Errorf("features: OpenCV %v estimation: %w", kind, err)
	}
	inlier := make([]bool, n)
	if found == 0 {
		return model, inlier, false, nil
	}
	copy(model[:], mdl[:9])
	for k, m := range mask {
		inlier[k] = m != 0
	}
	return model, inlier, true, nil
}
