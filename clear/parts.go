package clear

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
)

// Pivot names an item by the row chosen as its pivot: Key is the tie key of
// the row's score when chosen, Row its observation and Comp the first
// observation of its component. Solve chooses pivots in increasing (Key,
// Row), so that order ranks the items, and rank breaks assignment ties.
type Pivot struct {
	Key       int64
	Row, Comp int
}

// Less orders pivots as Solve chooses them.
func (p Pivot) Less(q Pivot) bool {
	if p.Key != q.Key {
		return p.Key < q.Key
	}
	return p.Row < q.Row
}

// Compare is Less as a three-way comparison, for slices.SortFunc.
func (p Pivot) Compare(q Pivot) int {
	switch {
	case p.Less(q):
		return -1
	case q.Less(p):
		return 1
	}
	return 0
}

// AddCounts adds part's counts to r's: Components, Dropped,
// SplitComponents, CutAssociations, IterativeComponents and
// DenseFallbacks add up; LargestComponent is the larger.
func (r *Result) AddCounts(part Result) {
	r.Components += part.Components
	r.LargestComponent = max(r.LargestComponent, part.LargestComponent)
	r.Dropped += part.Dropped
	r.SplitComponents += part.SplitComponents
	r.CutAssociations += part.CutAssociations
	r.IterativeComponents += part.IterativeComponents
	r.DenseFallbacks += part.DenseFallbacks
}

// singleton is the pivot of an observation without associations: its own
// row, chosen at score 0.
func singleton(o int) Pivot { return Pivot{Row: o, Comp: o} }

// RowCosts is what one observation's view assignment needs: its component,
// and the tie keys of its costs 1 − ⟨u, u'⟩ for the items of that
// component (increasing); every other item costs 1.
type RowCosts struct {
	Obs, Comp int
	Items     []Pivot
	Keys      []int64
}

// ErrWholeSolve reports a problem whose universe is larger than its
// eigenvalue count (the largest view has more observations, or
// Options.UniverseSize says so): the extra eigenvectors come from every
// component in one order, so it is solved whole, not part by part.
var ErrWholeSolve = errors.New("clear: the universe exceeds the eigenvalue count, so the problem is solved whole")

// UniverseOf returns the universe size of a problem of l observations
// whose largest view has maxView, given its eigenvalue count below (the
// sum of Below over its parts, plus one per singleton), as Solve sets it.
func UniverseOf(below, l, maxView int, opts *Options) (int, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	m := o.UniverseSize
	switch {
	case m < 0:
		return 0, fmt.Errorf("%w: %d is negative", ErrUniverseSize, m)
	case m > l:
		return 0, fmt.Errorf("%w: %d exceeds the %d observations", ErrUniverseSize, m, l)
	case m > 0 && m < maxView:
		return 0, fmt.Errorf("%w: %d is smaller than the largest view (%d observations), so distinctness cannot hold", ErrUniverseSize, m, maxView)
	case m == 0:
		m = max(below, maxView)
	}
	if m != below {
		return 0, ErrWholeSolve
	}
	return m, nil
}

// mergePivots returns the first n pivots of the sequences and singletons
// merged in order.
func mergePivots(seqs [][]Pivot, singletons []int, n int) []Pivot {
	var all []Pivot
	for _, s := range seqs {
		all = append(all, s...)
	}
	for _, o := range singletons {
		all = append(all, singleton(o))
	}
	slices.SortFunc(all, Pivot.Compare)
	return all[:min(n, len(all))]
}

// Cut returns the m-th pivot over the parts' sequences and the singletons
// (observations increasing): Solve's last pivot, so its items are the
// pivots up to and including the cut.
func Cut(seqs [][]Pivot, singletons []int, m int) (Pivot, error) {
	if m <= 0 {
		return Pivot{}, fmt.Errorf("clear: universe size %d", m)
	}
	all := mergePivots(seqs, singletons, m)
	if len(all) < m {
		return Pivot{}, errors.New("clear: internal error: fewer pivot candidates than the universe size")
	}
	return all[m-1], nil
}

// Lowest returns the n lowest items (pivots up to cut), which a view's
// assignment reads for the lowest open item of another component: n at
// least the largest view plus the most items of one component suffices.
func Lowest(seqs [][]Pivot, singletons []int, cut Pivot, n int) []Pivot {
	all := mergePivots(seqs, singletons, n)
	k := sort.Search(len(all), func(i int) bool { return cut.Less(all[i]) })
	return all[:k]
}

// AssignView assigns the n observations first, first+1, … of one view to
// items, as Solve's step 4 does: rows holds the RowCosts of those in parts,
// by increasing Obs; the others are singletons. lowest are the lowest
// items (Lowest) of m in all, and cut the last. It returns each
// observation's item.
func AssignView(first, n int, rows []RowCosts, lowest []Pivot, cut Pivot, m int, method Assignment) ([]Pivot, error) {
	items := slices.Clone(lowest)
	byObs := make([]*RowCosts, n)
	for k := range rows {
		r := &rows[k]
		if r.Obs < first || r.Obs >= first+n || byObs[r.Obs-first] != nil {
			return nil, fmt.Errorf("clear: observation %d is not once in view %d..%d", r.Obs, first, first+n-1)
		}
		if len(r.Keys) != len(r.Items) {
			return nil, fmt.Errorf("clear: observation %d has %d costs for %d items", r.Obs, len(r.Keys), len(r.Items))
		}
		byObs[r.Obs-first] = r
		items = append(items, r.Items...)
	}
	for g, r := range byObs {
		if r == nil && !cut.Less(singleton(first+g)) {
			items = append(items, singleton(first+g))
		}
	}
	slices.SortFunc(items, Pivot.Compare)
	items = slices.Compact(items)
	rank := func(p Pivot) int {
		k, _ := slices.BinarySearchFunc(items, p, Pivot.Compare)
		return k
	}
	ownItems := make([][]int, n)
	ownKeys := make([][]int64, n)
	comp := make([]int, n)
	for g, r := range byObs {
		if r == nil {
			comp[g] = first + g
			if s := singleton(first + g); !cut.Less(s) {
				ownItems[g], ownKeys[g] = []int{rank(s)}, []int64{0}
			}
			continue
		}
		comp[g] = r.Comp
		ownItems[g], ownKeys[g] = make([]int, len(r.Items)), r.Keys
		for j, p := range r.Items {
			ownItems[g][j] = rank(p)
		}
	}
	itemComp := make([]int, len(items))
	for k, p := range items {
		itemComp[k] = p.Comp
	}
	a := &viewAssigner{itemComp: itemComp, closed: make([]bool, len(items)), comp: func(g int) int { return comp[g] },
		own: func(g int) ([]int, []int64) { return ownItems[g], ownKeys[g] }}
	all := make([]int, n)
	for g := range all {
		all[g] = g
	}
	col := make([]int, n)
	if method == Hungarian {
		a.hungarian(all, col)
	} else {
		a.greedy(all, col)
	}
	out := make([]Pivot, n)
	for g, k := range col {
		// Every item below the last of lowest is in items; past it, an
		// item of this view may have hidden a lower one of another view.
		beyond := len(lowest) < m && (len(lowest) == 0 || lowest[len(lowest)-1].Less(items[k]))
		if k < 0 || beyond && comp[g] != items[k].Comp {
			return nil, fmt.Errorf("clear: observation %d needs an item beyond the %d lowest given", first+g, len(lowest))
		}
		out[g] = items[k]
	}
	return out, nil
}

// Number numbers the items of every observation (in order) by first
// appearance, as Solve's Result.Item, and returns the count. An item is
// named by its pivot's row, an observation.
func Number(items []Pivot) (item []int, count int, err error) {
	num := make([]int32, len(items))
	item = make([]int, len(items))
	for o, p := range items {
		if p.Row < 0 || p.Row >= len(items) {
			return nil, 0, fmt.Errorf("clear: observation %d's item is row %d, not one of the %d observations", o, p.Row, len(items))
		}
		if num[p.Row] == 0 {
			count++
			num[p.Row] = int32(count)
		}
		item[o] = int(num[p.Row]) - 1
	}
	return item, count, nil
}

// SolveParts is Solve run part by part, in the steps a distributed solve
// takes: Parts, then per part DecomposePart, Below and Sequence; the
// universe size (UniverseOf), Cut and Lowest over all parts; per part
// Costs; per view AssignView; Number. It returns Solve's Result (without
// Timing), or ErrWholeSolve where the parts cannot decide alone.
func SolveParts(ctx context.Context, p *Problem, opts *Options) (*Result, error) {
	if opts != nil {
		if _, err := opts.check(); err != nil {
			return nil, err
		}
	}
	parts, dropped, err := p.Parts()
	if err != nil {
		return nil, err
	}
	l, maxView := p.NumObservations(), 0
	for _, n := range p.ViewSizes {
		maxView = max(maxView, n)
	}
	res := &Result{Item: []int{}, Dropped: dropped}
	if l == 0 {
		return res, nil
	}
	solves := make([]*PartSolve, len(parts))
	seqs := make([][]Pivot, len(parts))
	inPart := make([]bool, l)
	below := 0
	for k := range parts {
		if solves[k], err = DecomposePart(ctx, &parts[k], opts); err != nil {
			return nil, err
		}
		below += solves[k].Below()
		seqs[k] = solves[k].Sequence()
		res.AddCounts(solves[k].Stats())
		for _, o := range parts[k].Observations {
			inPart[o] = true
		}
	}
	var singletons []int
	for o, in := range inPart {
		if !in {
			singletons = append(singletons, o)
			below++
		}
	}
	res.Components += len(singletons)
	res.LargestComponent = max(res.LargestComponent, min(1, len(singletons)))
	m, err := UniverseOf(below, l, maxView, opts)
	if err != nil {
		return nil, err
	}
	res.UniverseSize, res.BelowThreshold = m, below
	cut, err := Cut(seqs, singletons, m)
	if err != nil {
		return nil, err
	}
	most := 0
	byView := make([][]RowCosts, len(p.ViewSizes))
	vi := newViewIndex(p.ViewSizes)
	for k, ps := range solves {
		for g, r := range ps.Costs(cut) { // in the part's order
			most = max(most, len(r.Items))
			v := parts[k].Views[g]
			byView[v] = append(byView[v], r)
		}
	}
	lowest := Lowest(seqs, singletons, cut, maxView+most+1)
	items := make([]Pivot, 0, l)
	for v, n := range p.ViewSizes {
		rows := byView[v]
		slices.SortFunc(rows, func(a, b RowCosts) int { return a.Obs - b.Obs })
		got, err := AssignView(vi.offsets[v], n, rows, lowest, cut, m, optsAssignment(opts))
		if err != nil {
			return nil, err
		}
		items = append(items, got...)
	}
	if res.Item, res.Items, err = Number(items); err != nil {
		return nil, err
	}
	return res, nil
}

func optsAssignment(opts *Options) Assignment {
	if opts == nil {
		return Greedy
	}
	return opts.Assignment
}
