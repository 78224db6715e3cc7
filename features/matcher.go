//go:build cgo

package features

/*
#include <stdlib.h>
#include "nn.h"
*/
import "C"

import (
	"fmt"
	"math"
	"sync"
	"unsafe"

	"gocv.io/x/gocv"

	"github.com/clearmatch/clearmatch/pairwise"
)

var _ pairwise.Matcher = CVMatcher{}

// BLASCore names the kernel family OpenBLAS chose for this process
// ("Prescott" is its generic one, taken for a processor it does not
// recognize; OPENBLAS_CORETYPE overrides the choice at start-up).
func BLASCore() string { return C.GoString(C.cm_blas_corename()) }

// Nearest2 implements pairwise.Matcher.
func (CVMatcher) Nearest2(query, train []float32, dim int) ([]pairwise.Neighbors, error) {
	nq, nt := len(query)/dim, len(train)/dim
	out := make([]pairwise.Neighbors, nq)
	if nq == 0 || nt == 0 {
		for i := range out {
			out[i] = pairwise.Neighbors{Best: -1, Second: -1, D1: float32(math.Inf(1)), D2: float32(math.Inf(1))}
		}
		return out, nil
	}
	q, err := gocv.NewMatFromBytes(nq, dim, gocv.MatTypeCV32F, floatBytes(query))
	if err != nil {
		return nil, err
	}
	defer q.Close()
	t, err := gocv.NewMatFromBytes(nt, dim, gocv.MatTypeCV32F, floatBytes(train))
	if err != nil {
		return nil, err
	}
	defer t.Close()
	bf := gocv.NewBFMatcherWithParams(gocv.NormL2, false)
	defer bf.Close()
	knn := bf.KnnMatch(q, t, 2)
	if len(knn) != nq {
		return nil, fmt.Errorf("knnMatch returned %d rows for %d descriptors", len(knn), nq)
	}
	for i, ms := range knn {
		n := pairwise.Neighbors{Best: -1, Second: -1, D1: float32(math.Inf(1)), D2: float32(math.Inf(1))}
		if len(ms) > 0 {
			n.Best, n.D1 = int32(ms[0].TrainIdx), float32(ms[0].Distance*ms[0].Distance)
		}
		if len(ms) > 1 {
			n.Second, n.D2 = int32(ms[1].TrainIdx), float32(ms[1].Distance*ms[1].Distance)
		}
		out[i] = n
	}
	return out, nil
}

func floatBytes(f []float32) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&f[0])), len(f)*4)
}

var (
	_ pairwise.Matcher       = BLASMatcher{}
	_ pairwise.MutualMatcher = BLASMatcher{}
)

var blasOnce sync.Once

// MatcherProducts names the products BLASMatcher chooses candidates from
// on this processor: "int8 (AMX)" or "int8 (AVX-512 VNNI)" where it has
// those instructions, else "float32 (OpenBLAS <kernel>)". Descriptors with
// negative or non-finite values always take float32.
func MatcherProducts() string {
	if k := C.GoString(C.cm_int8_kernel_name(int8Mode)); k != "" {
		return "int8 (" + k + ")"
	}
	return "float32 (OpenBLAS " + BLASCore() + ")"
}

// int8Mode is cm_int8_kernel's mode: 0 for the best kernel; tests set 1
// (no AMX) to check the VNNI kernel on processors that have both.
var int8Mode C.int

// Nearest2 implements pairwise.Matcher.
func (m BLASMatcher) Nearest2(query, train []float32, dim int) ([]pairwise.Neighbors, error) {
	out, _, err := m.nearest2(query, train, dim, false)
	return out, err
}

// Nearest2Mutual implements pairwise.MutualMatcher: back[t] is train row
// t's nearest query row, from the same products.
func (m BLASMatcher) Nearest2Mutual(query, train []float32, dim int) ([]pairwise.Neighbors, []int32, error) {
	return m.nearest2(query, train, dim, true)
}

func (m BLASMatcher) nearest2(query, train []float32, dim int, mutual bool) ([]pairwise.Neighbors, []int32, error) {
	if dim <= 0 || len(query)%dim != 0 || len(train)%dim != 0 {
		return nil, nil, fmt.Errorf("features: descriptors of %d and %d floats are not rows of %d", len(query), len(train), dim)
	}
	if m.Tile < 0 {
		return nil, nil, fmt.Errorf("features: negative matcher tile %d", m.Tile)
	}
	nq, nt := len(query)/dim, len(train)/dim
	out := make([]pairwise.Neighbors, nq)
	var back []int32
	if mutual {
		back = make([]int32, nt)
		for i := range back {
			back[i] = -1
		}
	}
	if nq == 0 || nt == 0 {
		for i := range out {
			out[i] = pairwise.Neighbors{Best: -1, Second: -1, D1: float32(math.Inf(1)), D2: float32(math.Inf(1))}
		}
		return out, back, nil
	}
	blasOnce.Do(func() { C.cm_blas_single_thread() })
	best := make([]int32, nq)
	second := make([]int32, nq)
	d1 := make([]float32, nq)
	d2 := make([]float32, nq)
	var pb *C.int32_t
	if mutual {
		pb = (*C.int32_t)(unsafe.Pointer(&back[0]))
	}
	var done C.int
	var msg *C.char
	if !m.Float32 {
		msg = C.cm_nearest2_int8((*C.float)(unsafe.Pointer(&query[0])), C.int(nq),
			(*C.float)(unsafe.Pointer(&train[0])), C.int(nt), C.int(dim),
			(*C.int32_t)(unsafe.Pointer(&best[0])), (*C.int32_t)(unsafe.Pointer(&second[0])),
			(*C.float)(unsafe.Pointer(&d1[0])), (*C.float)(unsafe.Pointer(&d2[0])), pb, int8Mode, &done)
	}
	if done == 0 && msg == nil {
		msg = C.cm_nearest2((*C.float)(unsafe.Pointer(&query[0])), C.int(nq),
			(*C.float)(unsafe.Pointer(&train[0])), C.int(nt), C.int(dim), C.int(m.Tile),
			(*C.int32_t)(unsafe.Pointer(&best[0])), (*C.int32_t)(unsafe.Pointer(&second[0])),
			(*C.float)(unsafe.Pointer(&d1[0])), (*C.float)(unsafe.Pointer(&d2[0])), pb)
	}
	if err := cError(msg); err != nil {
		return nil, nil, err
	}
	for i := range out {
		out[i] = pairwise.Neighbors{Best: best[i], Second: second[i], D1: d1[i], D2: d2[i]}
	}
	return out, back, nil
}
