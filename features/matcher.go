//go:build cgo

package features

import (
	"fmt"
	"math"
	"unsafe"

	"gocv.io/x/gocv"

	"github.com/clearmatch/clearmatch/pairwise"
)

var _ pairwise.Matcher = CVMatcher{}

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
