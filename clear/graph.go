package clear

import (
	"fmt"
	"sync"
)

// halfPool keeps the scratch of buildGraph between calls: two arrays of one
// word per half-entry, megabytes for large inputs, and fresh memory costs a
// page fault per 4 KiB.
var halfPool = sync.Pool{New: func() any { return new([]uint64) }}

// takeHalves returns a pooled slice of length n (contents undefined).
func takeHalves(n int) *[]uint64 {
	b := halfPool.Get().(*[]uint64)
	if cap(*b) < n {
		*b = make([]uint64, n)
	}
	*b = (*b)[:n]
	return b
}

// graph is the association graph G̃ in compressed sparse row form: the
// symmetric weighted adjacency matrix Ã of the paper (Ã = P̃ - I after
// symmetrization and removal of the diagonal blocks). Every row is sorted by
// column, so the graph, and everything computed from it, does not depend on
// the order in which the associations are listed. Memory is linear in the
// number of associations.
type graph struct {
	n      int
	rowPtr []int // len n+1
	col    []int32
	w      []float64 // nil when every weight is 1 (binary input)
	deg    []float64 // d_i = Σ_j Ã_ij
}

// weight returns the weight of entry k.
func (g *graph) weight(k int) float64 {
	if g.w == nil {
		return 1
	}
	return g.w[k]
}

// buildGraph symmetrizes the associations into an adjacency matrix,
// following step 1 of the paper: P = (P̃ + P̃ᵀ)/2 and the diagonal blocks are
// set to the identity, so associations inside one view are dropped (they are
// counted in dropped). An association listed in one order only is symmetric
// (t_ab = t_ba = w) unless p.Directed; an association listed in both orders
// contributes the mean of its two weights. The same ordered pair listed
// twice is an error, reported for the later of the two.
//
// Every association gives two half-entries, (A, B) and (B, A). They are
// placed in their rows by a counting sort and, unless that already left
// every row sorted, a second one, so each row comes out ordered by column
// and, within a column, by association, with no comparison sort.
func buildGraph(p *Problem, vi viewIndex) (g *graph, dropped int, err error) {
	n := vi.numObs()
	as := p.Associations
	if len(as) >= 1<<31 {
		return nil, 0, fmt.Errorf("clear: %d associations exceed the limit of 2^31", len(as))
	}
	viewOf := make([]int32, n)
	for v := 0; v+1 < len(vi.offsets); v++ {
		for i := vi.offsets[v]; i < vi.offsets[v+1]; i++ {
			viewOf[i] = int32(v)
		}
	}
	// Per vertex, its number of half-entries; every half-entry is a row
	// entry once and a column entry once, so one count serves both sorts.
	start := make([]int, n+1)
	unitWeights := true
	for _, a := range as {
		if viewOf[a.A] == viewOf[a.B] { // includes A == B
			dropped++
			continue
		}
		start[a.A+1]++
		start[a.B+1]++
		unitWeights = unitWeights && (a.W == 0 || a.W == 1)
	}
	for i := 0; i < n; i++ {
		start[i+1] += start[i]
	}
	m := start[n]
	// Place each half-entry in its row, packed as col<<32 | tag, where the
	// tag is its association k as k<<1 | 1 when the row is the
	// association's A (one array, so each placement touches one cache
	// line). Rows then follow the order of the associations.
	next := make([]int, n)
	copy(next, start[:n])
	firstBuf := takeHalves(m)
	defer halfPool.Put(firstBuf)
	byRow := *firstBuf
	for k, a := range as {
		if viewOf[a.A] == viewOf[a.B] {
			continue
		}
		t := uint64(k) << 1
		byRow[next[a.A]] = uint64(a.B)<<32 | t | 1
		next[a.A]++
		byRow[next[a.B]] = uint64(a.A)<<32 | t
		next[a.B]++
	}
	// Associations listed in a natural order (by view pair, or by first
	// observation) leave every row sorted by column already. Otherwise one
	// counting sort fixes all rows: scanning rows in increasing order and
	// placing each entry (r, c) in row c as (c, r) yields rows sorted by
	// column, because the entries are symmetric; the tag's side bit flips.
	if !rowsSorted(byRow, start) {
		copy(next, start[:n])
		secondBuf := takeHalves(m)
		defer halfPool.Put(secondBuf)
		sorted := *secondBuf
		for r := 0; r < n; r++ {
			for _, h := range byRow[start[r]:start[r+1]] {
				c := h >> 32
				sorted[next[c]] = uint64(r)<<32 | (h^1)&0xffffffff
				next[c]++
			}
		}
		byRow = sorted
	}

	// Merge the entries of each (row, column): one listing of an
	// association, or one in each order.
	g = &graph{n: n, rowPtr: make([]int, n+1), deg: make([]float64, n)}
	if !unitWeights || p.Directed {
		g.w = make([]float64, 0, m)
	}
	weight := func(t uint32) float64 {
		if unitWeights {
			return 1
		}
		return as[t>>1].weight()
	}
	half := 1.0 // a one-way entry of directed input counts half
	if p.Directed {
		half = 0.5
	}
	colOf := func(h uint64) int32 { return int32(h >> 32) }
	col := make([]int32, m)
	out := 0
	for i := 0; i < n; i++ {
		deg := 0.0
		end := start[i+1]
		for s := start[i]; s < end; {
			c := colOf(byRow[s])
			if s+1 == end || colOf(byRow[s+1]) != c {
				// Listed once, the common case.
				w := weight(uint32(byRow[s])) * half
				col[out] = c
				if g.w != nil {
					g.w = append(g.w, w)
				}
				deg += w
				out++
				s++
				continue
			}
			var tOwn, tOther float64 // t_{i,c} and t_{c,i}
			haveOwn, haveOther := false, false
			for ; s < end && colOf(byRow[s]) == c; s++ {
				t := uint32(byRow[s])
				if t&1 == 1 {
					if haveOwn {
						return nil, 0, &InputError{Index: int(t >> 1), Err: fmt.Errorf("duplicate association (%d, %d)", i, c)}
					}
					tOwn, haveOwn = weight(t), true
				} else {
					if haveOther {
						return nil, 0, &InputError{Index: int(t >> 1), Err: fmt.Errorf("duplicate association (%d, %d)", c, i)}
					}
					tOther, haveOther = weight(t), true
				}
			}
			// Two listings without a duplicate: one in each order.
			w := (tOwn + tOther) / 2
			col[out] = c
			if g.w != nil {
				g.w = append(g.w, w)
			}
			deg += w
			out++
		}
		g.deg[i] = deg
		g.rowPtr[i+1] = out
	}
	g.col = col[:out:out]
	return g, dropped, nil
}

// rowsSorted reports whether every row of packed col<<32 | tag entries is
// in non-decreasing column order.
func rowsSorted(rows []uint64, start []int) bool {
	for r := 0; r+1 < len(start); r++ {
		row := rows[start[r]:start[r+1]]
		for i := 1; i < len(row); i++ {
			if row[i]>>32 < row[i-1]>>32 {
				return false
			}
		}
	}
	return true
}

// components labels the connected components of g by breadth-first search,
// started from the lowest unvisited vertex, so component c is the one whose
// smallest vertex is the c-th smallest. It returns the label of every vertex
// and each component's vertices in increasing order.
func (g *graph) components() (label []int, members [][]int) {
	label = make([]int, g.n)
	for i := range label {
		label[i] = -1
	}
	queue := make([]int, 0, 64)
	sizes := []int{}
	for s := 0; s < g.n; s++ {
		if label[s] >= 0 {
			continue
		}
		c := len(sizes)
		label[s] = c
		queue = append(queue[:0], s)
		for h := 0; h < len(queue); h++ {
			v := queue[h]
			for _, u := range g.col[g.rowPtr[v]:g.rowPtr[v+1]] {
				if label[u] < 0 {
					label[u] = c
					queue = append(queue, int(u))
				}
			}
		}
		sizes = append(sizes, len(queue))
	}
	// Bucket the vertices by label in increasing order: members come out sorted.
	flat := make([]int, g.n)
	start := make([]int, len(sizes)+1)
	for c, sz := range sizes {
		start[c+1] = start[c] + sz
	}
	fill := make([]int, len(sizes))
	copy(fill, start[:len(sizes)])
	for v, c := range label {
		flat[fill[c]] = v
		fill[c]++
	}
	members = make([][]int, len(sizes))
	for c := range sizes {
		members[c] = flat[start[c]:start[c+1]:start[c+1]]
	}
	return label, members
}
