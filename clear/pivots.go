package clear

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// zeroRowNorm is the norm below which a row of U counts as zero. A row is
// zero when its component gives no eigenvector to U (a given universe size
// smaller than the number of components); the reference code divides by
// the zero norm and gets NaN. Here a zero row never becomes a pivot, and its
// cost to every pivot is 1 (the cost of an orthogonal row).
const zeroRowNorm = 1e-12

// embedding holds the rows of U for one component (step 4): the component's
// selected eigenvectors restricted to its vertices, each row normalized.
// Rows of different components are orthogonal, so only rows inside a
// component are ever compared.
type embedding struct {
	verts []int
	d     int       // number of eigenvectors the component gives to U
	rows  []float64 // len(verts) × d, row-major, rows of unit norm (or zero)
	zero  []bool    // zero[i]: local row i is zero
}

// newEmbedding builds the rows of U for component c.
func newEmbedding(c *component, s *spectrum, d int, sl *slabs) embedding {
	n := c.size()
	k := len(s.values)
	e := embedding{verts: c.verts, d: d, rows: sl.f.take(n * d), zero: sl.b.take(n)}
	for i := 0; i < n; i++ {
		row := e.rows[i*d : (i+1)*d]
		copy(row, s.vectors[i*k:i*k+d])
		nrm := math.Sqrt(dot(row, row))
		if nrm < zeroRowNorm {
			for j := range row {
				row[j] = 0
			}
			e.zero[i] = true
			continue
		}
		scale(row, 1/nrm)
	}
	return e
}

func (e *embedding) row(i int) []float64 { return e.rows[i*e.d : (i+1)*e.d] }

// pivots are the m most orthogonal rows of U, in the order the greedy
// strategy of the paper chooses them; pivot k is item (column) k.
type pivots struct {
	comp  []int   // component of pivot k
	local []int   // local row of pivot k in its component
	key   []int64 // tie key of pivot k's score when it was chosen
	// byComp[c] lists the pivots (columns) that belong to component c, increasing.
	byComp [][]int
}

// selectPivots chooses m pivots greedily (paper, step 4): the first row of
// U, then repeatedly the row with the smallest sum of |inner products| with
// the pivots chosen so far, the lowest row on ties. Inner products between
// rows of different components are exactly zero, so the sum of a row only
// involves pivots of its own component, and the global greedy order is a
// merge of per-component greedy sequences: a heap keyed by (score, row)
// holds each component's best candidate. Cost: Σ_c pivots_c · size_c · d_c.
func selectPivots(emb []embedding, m int) (*pivots, error) {
	p := pivotSequence(emb, m)
	if len(p.comp) < m {
		return nil, errors.New("clear: internal error: fewer pivot candidates than the universe size")
	}
	return p, nil
}

// pivotSequence is selectPivots' greedy order, stopped after limit pivots
// or when no row is left to choose.
func pivotSequence(emb []embedding, limit int) *pivots {
	type state struct {
		sum      []float64
		eligible []bool
	}
	st := make([]state, len(emb))
	var fs slab[float64]
	var bs slab[bool]
	h := &candHeap{}
	best := func(ci int) (cand, bool) {
		e := &emb[ci]
		var b cand
		found := false
		for i, ok := range st[ci].eligible {
			if !ok {
				continue
			}
			key := tieKey(st[ci].sum[i])
			if !found || key < b.key {
				b = cand{key: key, row: e.verts[i], comp: ci, local: i}
				found = true
			}
		}
		return b, found
	}
	for ci := range emb {
		e := &emb[ci]
		st[ci] = state{sum: fs.take(len(e.verts)), eligible: bs.take(len(e.verts))}
		for i := range e.verts {
			st[ci].eligible[i] = !e.zero[i] && e.d > 0
		}
		if b, ok := best(ci); ok {
			*h = append(*h, b)
		}
	}
	h.init()
	largest := 0
	for ci := range emb {
		largest = max(largest, len(emb[ci].verts))
	}
	ipBuf := make([]float64, largest) // inner products with the new pivot
	p := &pivots{byComp: make([][]int, len(emb))}
	for len(p.comp) < limit && len(*h) > 0 {
		b := h.pop()
		ci := b.comp
		p.byComp[ci] = append(p.byComp[ci], len(p.comp))
		p.comp = append(p.comp, ci)
		p.local = append(p.local, b.local)
		p.key = append(p.key, b.key)
		e := &emb[ci]
		s := &st[ci]
		s.eligible[b.local] = false
		ip := ipBuf[:len(e.verts)]
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: len(e.verts), Cols: e.d, Stride: e.d, Data: e.rows}, vector(e.row(b.local)), 0, vector(ip))
		for i, ok := range s.eligible {
			if ok {
				s.sum[i] += math.Abs(ip[i])
			}
		}
		if nb, ok := best(ci); ok {
			h.push(nb)
		}
	}
	return p
}

type cand struct {
	key   int64
	row   int // global row, the tie-breaker
	comp  int
	local int
}

// candHeap is a binary min-heap of candidates ordered by (key, row), a
// total order (rows are distinct), so the pop order is fully determined.
// It is typed rather than container/heap's, which boxes every element.
type candHeap []cand

func (h candHeap) less(i, j int) bool {
	if h[i].key != h[j].key {
		return h[i].key < h[j].key
	}
	return h[i].row < h[j].row
}

func (h candHeap) init() {
	for i := len(h)/2 - 1; i >= 0; i-- {
		h.down(i)
	}
}

func (h *candHeap) push(c cand) {
	*h = append(*h, c)
	h.up(len(*h) - 1)
}

func (h *candHeap) pop() cand {
	old := *h
	top := old[0]
	last := len(old) - 1
	old[0] = old[last]
	*h = old[:last]
	h.down(0)
	return top
}

func (h candHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2
		if !h.less(j, i) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

func (h candHeap) down(i int) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && h.less(r, l) {
			j = r
		}
		if !h.less(j, i) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
