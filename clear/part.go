package clear

import (
	"context"
	"fmt"
	"sort"
)

// Part is one connected component of a Problem's association graph on its
// own: its observations in global numbering and the associations between
// them. CLEAR's heavy steps (spectra, pivot sequences, costs) run part by
// part, with memory that follows the part; SolveParts shows the small
// global steps between them.
type Part struct {
	// Observations are the part's observations, increasing, and Views the
	// view of each.
	Observations []int
	Views        []int
	// Associations between the part's observations, in global numbering.
	Associations []Association
	// Directed is the Problem's Directed.
	Directed bool
}

// Parts returns p's connected components of two or more observations,
// ordered by their first observation; every other observation is a
// singleton, an item of its own. dropped counts the associations inside
// one view that join two parts or singletons, which CLEAR removes and no
// part holds (a part counts those inside it).
func (p *Problem) Parts() (parts []Part, dropped int, err error) {
	vi, err := p.validate()
	if err != nil {
		return nil, 0, err
	}
	g, _, err := buildGraph(p, vi)
	if err != nil {
		return nil, 0, err
	}
	label, members := g.components()
	index := make([]int, len(members)) // component → part, or -1
	for c, vs := range members {
		index[c] = -1
		if len(vs) > 1 {
			index[c] = len(parts)
			pt := Part{Observations: vs, Views: make([]int, len(vs)), Directed: p.Directed}
			for k, o := range vs {
				pt.Views[k] = vi.view(o)
			}
			parts = append(parts, pt)
		}
	}
	for _, a := range p.Associations {
		ca, cb := label[a.A], label[a.B]
		if ca != cb || index[ca] < 0 {
			dropped++ // inside one view: nothing else joins them
			continue
		}
		parts[index[ca]].Associations = append(parts[index[ca]].Associations, a)
	}
	return parts, dropped, nil
}

// localProblem is pt as a Problem of its own: its observations in order
// (so local and global orders agree), one view per view it touches.
func (pt *Part) localProblem() (*Problem, error) {
	n := len(pt.Observations)
	if len(pt.Views) != n {
		return nil, fmt.Errorf("clear: part has %d observations and %d views", n, len(pt.Views))
	}
	q := &Problem{Directed: pt.Directed, Associations: make([]Association, len(pt.Associations))}
	for k, o := range pt.Observations {
		switch {
		case o < 0:
			return nil, fmt.Errorf("clear: part observation %d is negative", o)
		case k > 0 && o <= pt.Observations[k-1]:
			return nil, fmt.Errorf("clear: part observations are not increasing at %d", o)
		case k > 0 && pt.Views[k] < pt.Views[k-1]:
			return nil, fmt.Errorf("clear: part observation %d is in view %d, before view %d", o, pt.Views[k], pt.Views[k-1])
		}
		if k == 0 || pt.Views[k] != pt.Views[k-1] {
			q.ViewSizes = append(q.ViewSizes, 0)
		}
		q.ViewSizes[len(q.ViewSizes)-1]++
	}
	local := func(o int) (int, error) {
		k := sort.SearchInts(pt.Observations, o)
		if k == n || pt.Observations[k] != o {
			return 0, fmt.Errorf("observation %d is not in the part", o)
		}
		return k, nil
	}
	for k, a := range pt.Associations {
		var err error
		b := a
		if b.A, err = local(a.A); err == nil {
			b.B, err = local(a.B)
		}
		if err != nil {
			return nil, &InputError{Index: k, Err: err}
		}
		q.Associations[k] = b
	}
	return q, nil
}

// PartSolve is one part's share of a solve: DecomposePart finds its
// spectra, Sequence its pivot candidates, and Costs what its
// observations' view assignments need.
type PartSolve struct {
	s   *solver
	seq *pivots
}

// DecomposePart builds pt's components (split as opts.MaxComponent asks)
// and decomposes each, as Solve would inside the whole problem.
func DecomposePart(ctx context.Context, pt *Part, opts *Options) (*PartSolve, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.UniverseSize, o.Progress, o.Status = 0, nil, nil
	thr, err := o.check()
	if err != nil {
		return nil, err
	}
	q, err := pt.localProblem()
	if err != nil {
		return nil, err
	}
	s := &solver{ctx: ctx, o: o, thr: thr, p: q, sl: &slabs{}, global: pt.Observations}
	if err := s.graph(); err != nil {
		return nil, err
	}
	if err := s.decomposeAll(); err != nil {
		return nil, err
	}
	return &PartSolve{s: s}, nil
}

// Below is the number of the part's eigenvalues below the threshold: its
// share of the universe size.
func (ps *PartSolve) Below() int { return ps.s.res.BelowThreshold }

// Stats are the part's counts for Result: Components, LargestComponent,
// Dropped, SplitComponents, CutAssociations, IterativeComponents and
// DenseFallbacks.
func (ps *PartSolve) Stats() Result {
	r := *ps.s.res
	r.Item, r.BelowThreshold = nil, 0
	return r
}

// Sequence returns the part's pivot candidates in the order Solve would
// choose them, increasing in (Key, Row): every row a pivot could be, as
// though the universe were the part's eigenvalue count everywhere. Solve's
// pivots are the m least of all parts' sequences and the singletons.
func (ps *PartSolve) Sequence() []Pivot {
	ps.sequence()
	out := make([]Pivot, len(ps.seq.comp))
	for k, c := range ps.seq.comp {
		out[k] = ps.pivot(k, c)
	}
	return out
}

// sequence builds the embedding and the greedy sequence, once.
func (ps *PartSolve) sequence() {
	s := ps.s
	if ps.seq != nil {
		return
	}
	s.emb = make([]embedding, len(s.comps))
	for ci, c := range s.comps {
		s.emb[ci] = newEmbedding(c, &s.specs[ci], s.counts[ci], s.sl)
	}
	ps.seq = pivotSequence(s.emb, s.l)
}

// pivot is the k-th of the part's sequence, of local component c.
func (ps *PartSolve) pivot(k, c int) Pivot {
	e := &ps.s.emb[c]
	return Pivot{Key: ps.seq.key[k], Row: ps.s.global[e.verts[ps.seq.local[k]]], Comp: ps.s.global[e.verts[0]]}
}

// Costs returns, for every observation of the part in order, its costs for
// its component's pivots up to and including cut.
func (ps *PartSolve) Costs(cut Pivot) []RowCosts {
	ps.sequence()
	s := ps.s
	own := &pivots{byComp: make([][]int, len(s.comps))}
	items := make([][]Pivot, len(s.comps))
	for k, c := range ps.seq.comp {
		p := ps.pivot(k, c)
		if cut.Less(p) {
			break // the sequence increases
		}
		own.byComp[c] = append(own.byComp[c], len(own.comp))
		own.comp = append(own.comp, c)
		own.local = append(own.local, ps.seq.local[k])
		items[c] = append(items[c], p)
	}
	compOf, localOf := s.compIndex()
	a := newAssigner(s.emb, own, compOf, localOf)
	out := make([]RowCosts, s.l)
	for g := range out {
		c := compOf[g]
		out[g] = RowCosts{Obs: s.global[g], Comp: s.global[s.comps[c].verts[0]], Items: items[c], Keys: append([]int64(nil), a.costs(g)...)}
	}
	return out
}
