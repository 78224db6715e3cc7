package retrieval

import (
	"slices"

	"gonum.org/v1/gonum/blas/blas32"
)

// RankBlock is how many images' codes Neighbors compares at once, on
// each side: two blocks of 128 codes of 8192 floats are 8 MiB.
const RankBlock = 128

// Ranking finds, for a block of images (its rows), their k most similar
// other images, from blocks of images' codes given one after another:
// memory holds the rows' codes, one block and k candidates a row, not
// every image's code. A block is consecutive images, given by the first
// one's index and their codes. The result does not depend on how the
// other images are split into blocks, nor on their order.
type Ranking struct {
	k     int
	first int
	codes [][]float32
	top   [][]scored // per row, its best candidates so far, in order
}

type scored struct {
	sim float32
	j   int
}

// before orders candidates: the more similar first, the lower index first
// among equal similarities.
func (a scored) before(b scored) int {
	switch {
	case a.sim > b.sim:
		return -1
	case a.sim < b.sim:
		return 1
	}
	return a.j - b.j
}

// NewRanking starts the ranking of images first, first+1, …, whose codes
// are codes.
func NewRanking(first int, codes [][]float32, k int) *Ranking {
	return &Ranking{k: k, first: first, codes: codes, top: make([][]scored, len(codes))}
}

// Add compares every row with images first, first+1, …, whose codes are
// codes, leaving out each row's own image.
func (r *Ranking) Add(first int, codes [][]float32) {
	for a, ca := range r.codes {
		t := r.top[a]
		for b, cb := range codes {
			if first+b != r.first+a {
				t = append(t, scored{similarity32(ca, cb), first + b})
			}
		}
		slices.SortFunc(t, scored.before)
		r.top[a] = t[:min(r.k, len(t))]
	}
}

// Neighbors returns each row's neighbours, most similar first, leaving out
// those less similar than rel times its most similar image's similarity
// (rel 0 keeps all k).
func (r *Ranking) Neighbors(rel float64) [][]int {
	out := make([][]int, len(r.codes))
	for a, t := range r.top {
		for rel > 0 && len(t) > 0 && float64(t[len(t)-1].sim) < rel*float64(t[0].sim) {
			t = t[:len(t)-1]
		}
		out[a] = make([]int, len(t))
		for q, s := range t {
			out[a][q] = s.j
		}
	}
	return out
}

// similarity32 is ⟨a, b⟩ in float32, summed as gonum's SGEMM sums an
// entry of a large product: the dot products of blocks of 64 components,
// added in order. Each value is then the same whatever it is computed
// with.
func similarity32(a, b []float32) float32 {
	var s float32
	for k := 0; k < len(a); k += 64 {
		e := min(k+64, len(a))
		s += blas32.Dot(blas32.Vector{N: e - k, Inc: 1, Data: a[k:e]}, blas32.Vector{N: e - k, Inc: 1, Data: b[k:e]})
	}
	return s
}
