package multiway

import (
	"context"
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/clear"
	"gonum.org/v1/gonum/mat"
)

// EigengapUniverse is the eigengap heuristic of spectral clustering that
// the paper sets against CLEAR's estimate (Fig. "mEstimate"): the
// eigenvalues of the symmetric normalized Laplacian I − D^{-1/2} A D^{-1/2}
// of the association graph (0 for an isolated observation), sorted, and the
// number of them before the largest gap between consecutive ones. Each
// connected component is decomposed on its own.
func EigengapUniverse(ctx context.Context, p *clear.Problem) (int, error) {
	s, err := newSparse(p)
	if err != nil {
		return 0, err
	}
	var vals []float64
	for _, comp := range s.components() {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		n := len(comp)
		if n == 1 {
			vals = append(vals, 0)
			continue
		}
		pos := make(map[int]int, n)
		for i, v := range comp {
			pos[v] = i
		}
		deg := make([]float64, n)
		for i, v := range comp {
			for e := s.start[v]; e < s.start[v+1]; e++ {
				deg[i] += s.val[e]
			}
		}
		d := mat.NewSymDense(n, nil)
		for i, v := range comp {
			d.SetSym(i, i, 1)
			for e := s.start[v]; e < s.start[v+1]; e++ {
				if j := pos[s.col[e]]; j > i {
					d.SetSym(i, j, -s.val[e]/math.Sqrt(deg[i]*deg[j]))
				}
			}
		}
		var es mat.EigenSym
		if !es.Factorize(d, false) {
			return 0, errNotConverged(n)
		}
		vals = append(vals, es.Values(nil)...)
	}
	sort.Float64s(vals)
	best, gap := len(vals), -1.0
	for i := 1; i < len(vals); i++ {
		if g := vals[i] - vals[i-1]; g > gap+clear.ThresholdMargin {
			best, gap = i, g
		}
	}
	return best, nil
}
