//go:build !cgo

package features

import (
	"context"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Without cgo the package keeps its pure-Go parts (types, cache,
// orientation); every function that needs OpenCV returns ErrNoOpenCV, so a
// cgo-free binary fails at once with one clear line.

// OpenCV reports whether this build has OpenCV (cgo).
const OpenCV = false

// BLASCore is empty without OpenBLAS (cgo).
func BLASCore() string { return "" }

// MatcherProducts is empty without OpenBLAS (cgo).
func MatcherProducts() string { return "" }

// SetNumThreads does nothing without OpenCV.
func SetNumThreads(int) {}

// Extract needs OpenCV.
func Extract(name string, data []byte, opts Options) (*Set, error) { return nil, ErrNoOpenCV }

// ExtractAt needs OpenCV.
func ExtractAt(name string, data []byte, pts []geom.Point, sigma float64, rootSIFT bool) (*Set, error) {
	return nil, ErrNoOpenCV
}

// ExtractFiles needs OpenCV: every file gets ErrNoOpenCV.
func (e *Extractor) ExtractFiles(ctx context.Context, paths, names []string) ([]*Set, []error, Stats) {
	errs := make([]error, len(paths))
	for i := range errs {
		errs[i] = ErrNoOpenCV
	}
	return make([]*Set, len(paths)), errs, Stats{}
}

// Nearest2 needs OpenCV.
func (CVMatcher) Nearest2(query, train []float32, dim int) ([]pairwise.Neighbors, error) {
	return nil, ErrNoOpenCV
}

// Nearest2 needs OpenBLAS (cgo).
func (BLASMatcher) Nearest2(query, train []float32, dim int) ([]pairwise.Neighbors, error) {
	return nil, ErrNoOpenCV
}

// Nearest2Mutual needs OpenBLAS (cgo).
func (BLASMatcher) Nearest2Mutual(query, train []float32, dim int) ([]pairwise.Neighbors, []int32, error) {
	return nil, nil, ErrNoOpenCV
}

// Estimate needs OpenCV.
func (CVEstimator) Estimate(kind pairwise.ModelKind, a, b []geom.Point, threshold float64) ([9]float64, []bool, bool, error) {
	return [9]float64{}, nil, false, ErrNoOpenCV
}
