package multiway

import (
	"context"
	"math"
)

// spectral is the spectral relaxation of permutation synchronization:
// Pachauri, Kondor and Singh, "Solving the multi-way matching problem by
// permutation synchronization", NIPS 2013, in the partial-matching form
// the CLEAR paper compares (Zhou, Zhu and Daniilidis, ICCV 2015).
//
// The m̂ eigenvectors of P with the largest eigenvalues, rows normalized to
// unit length, are rounded greedily in index order: an unassigned
// observation opens an item, and in every later view the unassigned
// observation with the largest inner product joins it when that product
// is above 0.5. The output is a partition: consistent and distinct.
func spectral(ctx context.Context, s *sparse, m int, opts *Options) (*Result, error) {
	e, err := s.topEigen(ctx, m, opts)
	if err != nil {
		return nil, err
	}
	for _, r := range e.rows {
		if n := math.Sqrt(dot(r, r)); n > 0 {
			for j := range r {
				r[j] /= n
			}
		}
	}
	item := greedyRound(s, e.comp, e.dot, func(d float64) bool { return d > 0.5 })
	return &Result{Item: item}, nil
}
