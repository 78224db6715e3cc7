package clear

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"time"
)

// Assignment selects how observations of a view are assigned to pivots
// (step 4 of the paper).
type Assignment int

const (
	// Greedy is the reference implementation's suboptimal assignment: in
	// rounds, every unassigned observation wants its cheapest open item;
	// where several want the same item the cheapest wins and the item is
	// closed. It is the default, as in the paper's experiments.
	Greedy Assignment = iota
	// Hungarian solves each view's linear assignment problem optimally.
	Hungarian
)

func (a Assignment) String() string {
	switch a {
	case Greedy:
		return "greedy"
	case Hungarian:
		return "hungarian"
	}
	return fmt.Sprintf("Assignment(%d)", int(a))
}

// Eigensolver selects how components are decomposed.
type Eigensolver int

const (
	// EigenAuto decomposes components up to DenseMax observations densely
	// and larger ones with the iterative Lanczos solver.
	EigenAuto Eigensolver = iota
	// EigenDense decomposes every component densely (all eigenpairs). It is
	// the reference path: slow for large components, exact to rounding.
	EigenDense
	// EigenIterative uses the Lanczos solver for every component with
	// more than two observations (for testing it against EigenDense).
	EigenIterative
)

// DenseMax is the largest component that EigenAuto decomposes densely.
const DenseMax = 40

// Options configure Solve. The zero value gives the paper's algorithm.
type Options struct {
	// Threshold on the eigenvalues of the normalized Laplacian for the
	// universe size estimate; 0 means DefaultThreshold (0.5).
	Threshold float64
	// UniverseSize, when positive, is the known size of the universe m;
	// 0 means estimate it (paper, eq. 8).
	UniverseSize int
	// Assignment is the per-view assignment method; the default is Greedy.
	Assignment Assignment
	// Eigensolver is the eigen-decomposition path; the default is EigenAuto.
	Eigensolver Eigensolver
	// Seed seeds the random start blocks of the iterative eigensolver. The
	// output is deterministic for a given seed; it does not depend on the
	// seed except through rounding.
	Seed uint64
	// MaxComponent, when positive, bounds the size of a component: a larger
	// one is first split by dropping the associations that the fewest
	// 3-cycles support (see DefaultMaxComponent), so no input makes the
	// cubic eigen-decomposition run for minutes. 0 keeps every component
	// whole: the paper's algorithm, exactly.
	MaxComponent int
	// Progress, if set, is called with the observations whose components
	// have been decomposed so far, and their total.
	Progress func(done, total int)
	// Status, if set, is called when Progress is and at every step of a
	// long decomposition, with the component under way: a solve's time
	// goes to its few large components, so "component 3 of 58569, 4800
	// observations, step 120" tells more than a rate of observations.
	Status func(SolveStatus)
}

// SolveStatus is where a solve is (see Options.Status).
type SolveStatus struct {
	Done, Total int // observations of the components decomposed, of all
	// Component is the component under way, 1-based in the order they
	// are decomposed, of Components; Size its observations; Steps the
	// Lanczos steps taken on it (0 for a dense decomposition).
	Component, Components, Size, Steps int
}

// String describes the component under way: "component 3 of 58569, 4800
// observations, Lanczos step 120".
func (s SolveStatus) String() string {
	d := fmt.Sprintf("component %d of %d, %d observations", s.Component, s.Components, s.Size)
	if s.Steps > 0 {
		d += fmt.Sprintf(", Lanczos step %d", s.Steps)
	}
	return d
}

// Timing holds the time of each step of Solve.
type Timing struct {
	Graph  time.Duration // symmetrization, components, normalized Laplacian
	Eigen  time.Duration // eigen-decomposition and universe size
	Pivots time.Duration // embedding and pivot selection
	Assign time.Duration // lifting permutations
}

// Total is the sum of the steps.
func (t Timing) Total() time.Duration { return t.Graph + t.Eigen + t.Pivots + t.Assign }

// Result is the output of Solve: the lifting permutations P_i of the paper,
// given as the universe item of every observation.
type Result struct {
	// Item[i] is the universe item of observation i. Items are numbered by
	// first appearance (observation 0 is in item 0), so equal input gives
	// equal output. Two observations are associated in the output
	// (P_ij = P_i P_jᵀ) exactly when they share an item.
	Item []int
	// Items is the number of distinct items in Item.
	Items int
	// UniverseSize is m, the number of columns of the lifting permutations:
	// the given size, or max(BelowThreshold, largest view).
	UniverseSize int
	// BelowThreshold is m̃, the number of eigenvalues below the threshold.
	BelowThreshold int
	// Components and LargestComponent describe the input association graph.
	Components       int
	LargestComponent int
	// Dropped counts associations between observations of the same view,
	// which CLEAR removes (the diagonal blocks of P are I).
	Dropped int
	// SplitComponents counts the components larger than
	// Options.MaxComponent that were split, and CutAssociations the
	// associations the split dropped (0 on the paper's exact path).
	SplitComponents, CutAssociations int
	// IterativeComponents counts components decomposed iteratively, and
	// DenseFallbacks those where the iterative solver failed and the dense
	// one was used instead.
	IterativeComponents int
	DenseFallbacks      int
	Timing              Timing
}

// ErrUniverseSize reports a universe size that cannot hold the problem.
var ErrUniverseSize = errors.New("clear: impossible universe size")

// Solve runs CLEAR (Fathian et al., Algorithm 1) on p and returns a cycle
// consistent, distinct association of all observations. Invalid input
// returns an *InputError naming the association or view; Solve does not
// panic on any Problem. A nil opts means the zero Options.
func Solve(p *Problem, opts *Options) (*Result, error) {
	return SolveContext(context.Background(), p, opts)
}

// SolveContext is Solve, stopped with ctx's error when ctx is done: it is
// checked between components and at every step of the iterative
// eigensolver. A dense decomposition cannot be interrupted (gonum's
// EigenSym), so a cancel during one takes effect when it ends; no
// goroutine outlives the call.
func SolveContext(ctx context.Context, p *Problem, opts *Options) (*Result, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	thr, err := o.check()
	if err != nil {
		return nil, err
	}
	s := &solver{ctx: ctx, o: o, thr: thr, p: p, sl: &slabs{}}
	t0 := time.Now()
	if err := s.graph(); err != nil {
		return nil, err
	}
	t1 := time.Now()
	s.res.Timing.Graph = t1.Sub(t0)
	if s.l == 0 {
		return s.res, nil
	}
	// Steps 1–2: spectra per component and the universe size.
	if err := s.spectra(); err != nil {
		return nil, err
	}
	t2 := time.Now()
	s.res.Timing.Eigen = t2.Sub(t1)
	// Steps 3–4: embedding and pivots, then the lifting permutations.
	if err := s.embed(); err != nil {
		return nil, err
	}
	t3 := time.Now()
	s.res.Timing.Pivots = t3.Sub(t2)
	s.assign()
	s.res.Timing.Assign = time.Since(t3)
	return s.res, nil
}

// check reports options Solve cannot use and returns the threshold.
func (o *Options) check() (float64, error) {
	thr := o.Threshold
	if thr == 0 {
		thr = DefaultThreshold
	}
	switch {
	case math.IsNaN(thr) || math.IsInf(thr, 0) || thr < 0:
		return 0, fmt.Errorf("clear: threshold %v is not a positive number", o.Threshold)
	case o.UniverseSize < 0:
		return 0, fmt.Errorf("%w: %d is negative", ErrUniverseSize, o.UniverseSize)
	case o.Assignment != Greedy && o.Assignment != Hungarian:
		return 0, fmt.Errorf("clear: unknown assignment method %d", int(o.Assignment))
	case o.Eigensolver < EigenAuto || o.Eigensolver > EigenIterative:
		return 0, fmt.Errorf("clear: unknown eigensolver %d", int(o.Eigensolver))
	case o.MaxComponent < 0:
		return 0, fmt.Errorf("clear: MaxComponent %d is negative", o.MaxComponent)
	}
	return thr, nil
}

// solver is one SolveContext call's state, step by step.
type solver struct {
	ctx context.Context
	o   Options
	thr float64
	p   *Problem
	vi  viewIndex
	sl  *slabs
	res *Result
	// l observations, maxView the largest view's, m the universe size.
	l, maxView, m int
	comps         []*component
	specs         []spectrum
	counts        []int
	dims          []int
	emb           []embedding
	piv           *pivots
	// done counts the observations of the components decomposed.
	done int
	// global maps p's observations to a whole problem's, when p is a
	// part of one (DecomposePart); nil otherwise.
	global []int
}

// graph builds the association graph (split into components no larger
// than MaxComponent) and checks the universe size against it.
func (s *solver) graph() error {
	var err error
	if s.vi, err = s.p.validate(); err != nil {
		return err
	}
	g, dropped, err := buildGraph(s.p, s.vi)
	if err != nil {
		return err
	}
	_, members := g.components()
	var cut, split int
	if s.o.MaxComponent > 0 {
		var drop map[[2]int32]bool
		if drop, split = splitLargeComponents(g, members, s.o.MaxComponent); split > 0 {
			q := withoutEdges(s.p, drop)
			cut = len(s.p.Associations) - len(q.Associations)
			if g, _, err = buildGraph(q, s.vi); err != nil {
				return err
			}
			_, members = g.components()
		}
	}
	s.l = g.n
	for _, n := range s.p.ViewSizes {
		s.maxView = max(s.maxView, n)
	}
	s.m = s.o.UniverseSize
	if s.m > s.l {
		return fmt.Errorf("%w: %d exceeds the %d observations", ErrUniverseSize, s.m, s.l)
	}
	if s.m > 0 && s.m < s.maxView {
		return fmt.Errorf("%w: %d is smaller than the largest view (%d observations), so distinctness cannot hold", ErrUniverseSize, s.m, s.maxView)
	}
	s.comps = make([]*component, len(members))
	local := make([]int32, s.l)
	invSqrtC := make([]float64, s.l)
	for i, d := range g.deg {
		invSqrtC[i] = 1 / math.Sqrt(d+1)
	}
	s.res = &Result{Item: make([]int, s.l), Components: len(members), Dropped: dropped, SplitComponents: split, CutAssociations: cut}
	for c, vs := range members {
		s.comps[c] = newComponent(g, vs, local, invSqrtC, s.sl)
		if s.global != nil {
			s.comps[c].seedID = s.global[vs[0]]
		}
		s.res.LargestComponent = max(s.res.LargestComponent, len(vs))
	}
	return nil
}

// iterative reports whether component c is decomposed by Lanczos.
func (s *solver) iterative(c *component) bool {
	switch s.o.Eigensolver {
	case EigenDense:
		return false
	case EigenIterative:
		return c.size() > 2
	}
	return c.size() > DenseMax
}

// dense decomposes c fully.
func (s *solver) dense(c *component) (spectrum, error) {
	if c.size() <= denseWatch {
		return denseSpectrum(c, s.sl), nil
	}
	// Large and cubic (a fallback, or EigenDense): gonum's EigenSym
	// cannot be interrupted, so a cancel takes effect when it ends;
	// running it aside would leave it burning a core after return.
	if err := s.ctx.Err(); err != nil {
		return spectrum{}, err
	}
	sp := denseSpectrum(c, nil)
	return sp, s.ctx.Err()
}

// decompose finds component ci's eigenpairs of L_nrm below the threshold
// (at least nmin of them), iteratively where it can, densely otherwise
// or when Lanczos fails.
func (s *solver) decompose(ci int, nmin int) error {
	c := s.comps[ci]
	if !s.iterative(c) {
		var err error
		s.specs[ci], err = s.dense(c)
		return err
	}
	c.done = s.ctx.Done()
	if (s.o.Progress != nil || s.o.Status != nil) && s.done < s.l {
		// Not in the second pass (done == l): Progress(l, l) means
		// finished, and a printer ends its line on it.
		c.beat = s.beat(ci)
	}
	th, vs, ok := func() ([]float64, [][]float64, bool) {
		t := newTeam(c)
		defer t.close()                                     // the helpers spin until closed
		return topEigen(c, t, 1-s.thr-1e-6, nmin, s.o.Seed) // a little above the threshold too
	}()
	if err := s.ctx.Err(); err != nil {
		return err
	}
	if !ok {
		s.res.DenseFallbacks++
		var err error
		s.specs[ci], err = s.dense(c)
		return err
	}
	s.specs[ci] = spectrumFromTop(th, vs, c.size())
	return nil
}

// beat reports a Lanczos step of component ci.
func (s *solver) beat(ci int) func() {
	steps := 0
	return func() {
		steps++
		if s.o.Progress != nil {
			s.o.Progress(s.done, s.l)
		}
		if s.o.Status != nil {
			s.o.Status(SolveStatus{Done: s.done, Total: s.l, Component: ci + 1, Components: len(s.comps), Size: s.comps[ci].size(), Steps: steps})
		}
	}
}

// decomposeAll decomposes every component and counts its eigenvalues
// below the threshold (s.counts, and their sum in s.res.BelowThreshold).
func (s *solver) decomposeAll() error {
	s.specs = make([]spectrum, len(s.comps))
	s.counts = make([]int, len(s.comps))
	for ci, c := range s.comps {
		if s.iterative(c) {
			s.res.IterativeComponents++
		}
		if err := s.decompose(ci, 0); err != nil {
			return err
		}
		s.counts[ci] = s.specs[ci].count(s.thr)
		s.res.BelowThreshold += s.counts[ci]
		if s.done += c.size(); c.size() > 1 || ci == len(s.comps)-1 {
			s.report(ci)
		}
	}
	return nil
}

// spectra decomposes every component, counts the eigenvalues below the
// threshold, sets the universe size, and decomposes further where the
// universe needs more eigenvectors than the counts.
func (s *solver) spectra() error {
	if err := s.decomposeAll(); err != nil {
		return err
	}
	below := s.res.BelowThreshold
	if s.m == 0 {
		s.m = max(below, s.maxView)
	}
	s.res.UniverseSize = s.m
	if s.m > below {
		// The universe is larger than the count: the extra eigenvectors come
		// from the next eigenvalues of all components, so each component
		// needs at most m − below more than its count.
		extra := s.m - below
		for ci, c := range s.comps {
			need := min(c.size(), s.counts[ci]+extra)
			if !s.specs[ci].complete && len(s.specs[ci].values) < need {
				if err := s.decompose(ci, need); err != nil {
					return err
				}
			}
		}
	}
	s.dims = selectEigenvectors(s.specs, s.counts, s.m, s.thr)
	return nil
}

// report tells Progress and Status that component ci is decomposed.
func (s *solver) report(ci int) {
	if s.o.Progress != nil {
		s.o.Progress(s.done, s.l)
	}
	if s.o.Status != nil {
		// The next component is under way now (the last, when done).
		next := min(ci+1, len(s.comps)-1)
		s.o.Status(SolveStatus{Done: s.done, Total: s.l, Component: next + 1, Components: len(s.comps), Size: s.comps[next].size()})
	}
}

// embed builds each component's embedding and selects the pivots.
func (s *solver) embed() error {
	s.emb = make([]embedding, len(s.comps))
	for ci, c := range s.comps {
		s.emb[ci] = newEmbedding(c, &s.specs[ci], s.dims[ci], s.sl)
	}
	var err error
	s.piv, err = selectPivots(s.emb, s.m)
	return err
}

// assign computes the lifting permutations view by view and numbers the
// items by first appearance.
func (s *solver) assign() {
	compOf, localOf := s.compIndex()
	a := newAssigner(s.emb, s.piv, compOf, localOf).view(s.m)
	col := make([]int, s.l)
	for v := range s.p.ViewSizes {
		rows := make([]int, 0, s.vi.offsets[v+1]-s.vi.offsets[v])
		for i := s.vi.offsets[v]; i < s.vi.offsets[v+1]; i++ {
			rows = append(rows, i)
		}
		if s.o.Assignment == Hungarian {
			a.hungarian(rows, col)
		} else {
			a.greedy(rows, col)
		}
	}
	renum := make([]int, s.m)
	for i := range renum {
		renum[i] = -1
	}
	for i, c := range col {
		if renum[c] < 0 {
			renum[c] = s.res.Items
			s.res.Items++
		}
		s.res.Item[i] = renum[c]
	}
}

// compIndex returns every observation's component and its index there.
func (s *solver) compIndex() (compOf, localOf []int) {
	compOf, localOf = make([]int, s.l), make([]int, s.l)
	for ci, c := range s.comps {
		for li, v := range c.verts {
			compOf[v], localOf[v] = ci, li
		}
	}
	return compOf, localOf
}

// spectrumFromTop converts the largest eigenpairs of P_nrm into the smallest
// of L_nrm = I − P_nrm.
func spectrumFromTop(theta []float64, vecs [][]float64, n int) spectrum {
	k := len(theta)
	s := spectrum{values: make([]float64, k), vectors: make([]float64, n*k), complete: k == n}
	for j := 0; j < k; j++ {
		s.values[j] = 1 - theta[j]
		for i := 0; i < n; i++ {
			s.vectors[i*k+j] = vecs[j][i]
		}
	}
	return s
}

// selectEigenvectors chooses the eigenvectors of the m smallest eigenvalues
// over all components (step 3) and returns how many each component gives.
// The eigenvalues below the threshold come first; ties in value (to 1e-9)
// are broken by component (in order of their smallest observation), then by
// position in the component's ascending spectrum.
func selectEigenvectors(specs []spectrum, counts []int, m int, thr float64) []int {
	dims := make([]int, len(specs))
	total := 0
	for _, k := range counts {
		total += k
	}
	if total == m {
		copy(dims, counts)
		return dims
	}
	type cand struct {
		below bool
		key   int64
		comp  int
		j     int
	}
	var cands []cand
	for ci := range specs {
		for j, v := range specs[ci].values {
			cands = append(cands, cand{below(v, thr), tieKey(v), ci, j})
		}
	}
	sort.Slice(cands, func(a, b int) bool {
		x, y := cands[a], cands[b]
		if x.below != y.below {
			return x.below
		}
		if x.key != y.key {
			return x.key < y.key
		}
		if x.comp != y.comp {
			return x.comp < y.comp
		}
		return x.j < y.j
	})
	// Within a component the chosen eigenvalues are a prefix of its
	// ascending spectrum, except where ties reorder them; dims counts them
	// and embedding takes the first dims[c] columns, which is the same set
	// because ties within a component are ordered by position too.
	for _, c := range cands[:min(m, len(cands))] {
		dims[c.comp]++
	}
	return dims
}
