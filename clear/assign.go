package clear

import (
	"slices"

	"github.com/clearmatch/clearmatch/internal/assignment"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// assigner computes the lifting permutations (step 4): every observation of
// a view is assigned to one pivot (item), each item taking at most one
// observation of the view. The cost of row u_j for pivot u'_k is
// 1 − ⟨u_j, u'_k⟩, the reference code's F (the paper's ‖u_j − u'_k‖² is twice
// that, for unit rows, so both order the same). A row's cost for every pivot
// of another component is exactly 1, so only pivots of its own component are
// ever computed; "foreign" items are represented by the lowest open one.
type assigner struct {
	emb     []embedding
	piv     *pivots
	compOf  []int
	localOf []int
	// pivRows[c] holds the rows of component c's pivots, in the order of
	// piv.byComp[c], as a block for one matrix–vector product per row.
	pivRows [][]float64
	ip      []float64
	keys    []int64
}

func newAssigner(emb []embedding, piv *pivots, compOf, localOf []int) *assigner {
	a := &assigner{emb: emb, piv: piv, compOf: compOf, localOf: localOf, pivRows: make([][]float64, len(emb))}
	most := 0
	for c, own := range piv.byComp {
		e := &emb[c]
		block := make([]float64, 0, len(own)*e.d)
		for _, k := range own {
			block = append(block, e.row(piv.local[k])...)
		}
		a.pivRows[c] = block
		most = max(most, len(own))
	}
	a.ip, a.keys = make([]float64, most), make([]int64, most)
	return a
}

// view returns the assignment of one view's rows over all the pivots.
func (a *assigner) view(m int) *viewAssigner {
	return &viewAssigner{itemComp: a.piv.comp, closed: make([]bool, m), comp: func(g int) int { return a.compOf[g] },
		own: func(g int) ([]int, []int64) { return a.piv.byComp[a.compOf[g]], a.costs(g) }}
}

// viewAssigner assigns the rows of one view at a time to items, knowing
// of each row only its component and its costs for its own component's
// items: every other item costs 1. Items are ranked 0, 1, …; the rank
// breaks ties.
type viewAssigner struct {
	itemComp []int  // component of item k
	closed   []bool // per item, reset after each view
	comp     func(g int) int
	// own returns row g's own component's items, increasing, and its
	// costs' tie keys for them (reused by the next call).
	own func(g int) (items []int, keys []int64)
}

var oneKey = tieKey(1)

// costs returns the tie keys of row g's costs 1 − ⟨u_g, u'_k⟩ for the pivots
// k of its own component, in the order of piv.byComp. The slice is reused
// by the next call.
func (a *assigner) costs(g int) []int64 {
	c := a.compOf[g]
	e := &a.emb[c]
	nk := len(a.piv.byComp[c])
	keys := a.keys[:nk]
	if li := a.localOf[g]; e.zero[li] || nk == 0 {
		for j := range keys {
			keys[j] = oneKey
		}
	} else {
		ip := a.ip[:nk]
		blas64.Gemv(blas.NoTrans, 1, blas64.General{Rows: nk, Cols: e.d, Stride: e.d, Data: a.pivRows[c]}, vector(e.row(li)), 0, vector(ip))
		for j, v := range ip {
			keys[j] = tieKey(1 - v)
		}
	}
	return keys
}

// lowestOpenForeign returns the lowest open item that is not a pivot of
// component c, or -1.
func (a *viewAssigner) lowestOpenForeign(c int) int {
	for k, closed := range a.closed {
		if !closed && a.itemComp[k] != c {
			return k
		}
	}
	return -1
}

type want struct {
	key  int64
	item int
}

func (w want) less(v want) bool {
	if w.key != v.key {
		return w.key < v.key
	}
	return w.item < v.item
}

// greedy assigns the rows (one view's observations, increasing) as the
// reference code's suboptimal assignment does: in rounds, every unassigned
// row wants its cheapest open item (the lowest item on ties); for each
// wanted item the row with the lowest cost wins (the first row on ties) and
// the item closes; the others try again in the next round.
func (a *viewAssigner) greedy(rows []int, col []int) {
	wants := make([]want, len(rows))
	winner := map[int]int{} // item → index into rows of the current winner
	var closedNow []int
	for len(rows) > 0 {
		for r, g := range rows {
			w := want{key: oneKey, item: a.lowestOpenForeign(a.comp(g))}
			items, keys := a.own(g)
			for j, key := range keys {
				k := items[j]
				if a.closed[k] {
					continue
				}
				if v := (want{key: key, item: k}); w.item < 0 || v.less(w) {
					w = v
				}
			}
			wants[r] = w
		}
		clear(winner)
		for r := range rows {
			k := wants[r].item
			if cur, ok := winner[k]; !ok || wants[r].key < wants[cur].key {
				winner[k] = r
			}
		}
		rest := rows[:0:0]
		for r, g := range rows {
			k := wants[r].item
			if winner[k] == r {
				col[g] = k
				a.closed[k] = true
				closedNow = append(closedNow, k)
			} else {
				rest = append(rest, g)
			}
		}
		rows = rest
		wants = wants[:len(rows)]
	}
	for _, k := range closedNow {
		a.closed[k] = false
	}
}

// hungarian assigns the rows optimally. Because every cost outside a row's
// own component is 1, and there are at least as many items as rows, the
// problem splits by component: the rows of component c choose between the
// pivots of c (their own costs) and "elsewhere" at cost 1. Each part is
// solved exactly with the Hungarian method; rows sent elsewhere then take,
// in increasing order, the lowest open items outside their component.
func (a *viewAssigner) hungarian(rows []int, col []int) {
	groups := map[int][]int{}
	var order []int
	for _, g := range rows {
		c := a.comp(g)
		if _, ok := groups[c]; !ok {
			order = append(order, c)
		}
		groups[c] = append(groups[c], g)
	}
	var elsewhere []int
	var closedNow []int
	for _, c := range order {
		gr := groups[c]
		var own []int
		nr, nc := len(gr), 0
		var cost []float64
		for r, g := range gr {
			items, keys := a.own(g)
			if r == 0 {
				own = slices.Clone(items)
				nc = len(own) + len(gr)
				cost = make([]float64, nr*nc)
			}
			for j, key := range keys {
				cost[r*nc+j] = float64(key)
			}
			for j := len(own); j < nc; j++ {
				cost[r*nc+j] = float64(oneKey)
			}
		}
		asg := assignment.Min(cost, nr, nc)
		for r, g := range gr {
			if j := asg[r]; j < len(own) {
				col[g] = own[j]
				a.closed[own[j]] = true
				closedNow = append(closedNow, own[j])
			} else {
				col[g] = -1
			}
		}
	}
	for _, g := range rows {
		if col[g] < 0 {
			elsewhere = append(elsewhere, g)
		}
	}
	for _, g := range elsewhere {
		k := a.lowestOpenForeign(a.comp(g))
		col[g] = k
		a.closed[k] = true
		closedNow = append(closedNow, k)
	}
	for _, k := range closedNow {
		a.closed[k] = false
	}
}
