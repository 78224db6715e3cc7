package clear

import (
	"fmt"
)

// graph is the association graph G̃ in compressed sparse row form: the
// symmetric weighted adjacency matrix Ã of the paper (Ã = P̃ - I after
// symmetrization and removal of the diagonal blocks). Memory is linear in
// the number of associations.
type graph struct {
	n      int
	rowPtr []int // len n+1
	col    []int32
	w      []float64
	deg    []float64 // d_i = Σ_j Ã_ij
}

// buildGraph symmetrizes the associations into an adjacency matrix,
// following step 1 of the paper: P = (P̃ + P̃ᵀ)/2 and the diagonal blocks are
// set to the identity, so associations inside one view are dropped (they are
// counted in dropped). An association listed in one order only is symmetric
// (t_ab = t_ba = w) unless p.Directed; an association listed in both orders
// contributes the mean of its two weights. The same ordered pair listed
// twice is an error.
func buildGraph(p *Problem, vi viewIndex) (g *graph, dropped int, err error) {
	n := vi.numObs()
	viewOf := make([]int32, n)
	for v := 0; v+1 < len(vi.offsets); v++ {
		for i := vi.offsets[v]; i < vi.offsets[v+1]; i++ {
			viewOf[i] = int32(v)
		}
	}
	as := p.Associations
	counts := make([]int, n+1)
	for _, a := range as {
		if viewOf[a.A] == viewOf[a.B] { // includes A == B
			dropped++
			continue
		}
		counts[a.A+1]++
		counts[a.B+1]++
	}
	for i := 0; i < n; i++ {
		counts[i+1] += counts[i]
	}
	// Each half-entry (row, col, association k, and whether row is the
	// association's A) is placed by two counting sorts, by column and then
	// by row, so every row comes out ordered by column, then association.
	m := counts[n]
	byCol := make([]int, n+1)
	for _, a := range as {
		if viewOf[a.A] != viewOf[a.B] {
			byCol[a.B+1]++
			byCol[a.A+1]++
		}
	}
	for i := 0; i < n; i++ {
		byCol[i+1] += byCol[i]
	}
	type half struct {
		row, col int32
		k        uint32 // association index << 1 | 1 if row is the association's A
	}
	tmp := make([]half, m)
	for k, a := range as {
		if viewOf[a.A] == viewOf[a.B] {
			continue
		}
		tmp[byCol[a.B]] = half{int32(a.A), int32(a.B), uint32(k)<<1 | 1}
		byCol[a.B]++
		tmp[byCol[a.A]] = half{int32(a.B), int32(a.A), uint32(k) << 1}
		byCol[a.A]++
	}
	rows := make([]half, m)
	next := make([]int, n)
	copy(next, counts[:n])
	for _, h := range tmp {
		rows[next[h.row]] = h
		next[h.row]++
	}
	tmp = nil

	unitWeights := true
	for _, a := range as {
		if a.W != 0 && a.W != 1 {
			unitWeights = false
			break
		}
	}
	weight := func(h half) float64 {
		if unitWeights {
			return 1
		}
		return as[h.k>>1].weight()
	}
	g = &graph{n: n, rowPtr: make([]int, n+1), deg: make([]float64, n)}
	g.col = make([]int32, 0, m)
	g.w = make([]float64, 0, m)
	for i := 0; i < n; i++ {
		row := rows[counts[i]:counts[i+1]]
		for s := 0; s < len(row); {
			col := row[s].col
			e := s
			var tOwn, tOther float64 // t_{i,col} and t_{col,i}
			haveOwn, haveOther := false, false
			for ; e < len(row) && row[e].col == col; e++ {
				h := row[e]
				if h.k&1 == 1 {
					if haveOwn {
						return nil, 0, &InputError{Index: int(h.k >> 1), Err: fmt.Errorf("duplicate association (%d, %d)", i, col)}
					}
					tOwn, haveOwn = weight(h), true
				} else {
					if haveOther {
						return nil, 0, &InputError{Index: int(h.k >> 1), Err: fmt.Errorf("duplicate association (%d, %d)", col, i)}
					}
					tOther, haveOther = weight(h), true
				}
			}
			switch {
			case p.Directed && !haveOwn:
				tOwn = 0
			case p.Directed && !haveOther:
				tOther = 0
			case !haveOwn:
				tOwn = tOther
			case !haveOther:
				tOther = tOwn
			}
			w := (tOwn + tOther) / 2
			g.col = append(g.col, col)
			g.w = append(g.w, w)
			g.deg[i] += w
			s = e
		}
		g.rowPtr[i+1] = len(g.col)
	}
	return g, dropped, nil
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
