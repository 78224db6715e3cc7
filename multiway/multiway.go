package multiway

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/clearmatch/clearmatch/clear"
)

// Method names, as the CLI spells them.
const (
	CLEAR      = "clear"
	Spectral   = "spectral"
	MatchEIG   = "matcheig"
	MatchALS   = "matchals"
	NMFSync    = "nmfsync"
	QuickMatch = "quickmatch"
	MatchLift  = "matchlift"
)

// Methods lists every method in the paper's order of comparison, CLEAR
// first.
var Methods = []string{CLEAR, Spectral, MatchEIG, MatchALS, NMFSync, QuickMatch, MatchLift}

// DefaultMaxMemory is the memory a method may plan to use when
// Options.MaxMemory is 0: 4 GiB.
const DefaultMaxMemory = 4 << 30

// DefaultMaxFlop is the planned work a method may take when
// Options.MaxFlop is 0: 10¹³ floating-point operations, 10 to 20 minutes
// on one 2-core machine.
const DefaultMaxFlop = 1e13

// DefaultSeed seeds MatchALS's initial factor and QuickMatch's tie-break
// when Options.Seed is 0.
const DefaultSeed = 1

// Options control Run. The zero value runs every method as the paper's
// harness does.
type Options struct {
	// Universe is the universe size m̂ handed to the methods that need
	// one. 0 uses CLEAR's estimate (EstimateUniverse), as the paper does.
	Universe int
	// Seed seeds every random choice (MatchALS's initial factor,
	// QuickMatch's tie-break noise); 0 means DefaultSeed.
	Seed uint64
	// MaxMemory bounds the memory a method plans to allocate, in bytes:
	// past it Run returns an *ErrTooLarge before allocating. 0 means
	// DefaultMaxMemory; negative means no limit.
	MaxMemory int64
	// MaxFlop bounds the floating-point work a method plans at its
	// iteration cap (Work): past it Run returns an *ErrTooSlow before
	// starting. 0 means DefaultMaxFlop; negative means no limit.
	MaxFlop float64
	// MaxIter overrides the iteration cap of the iterative methods
	// (MatchALS 200, NMFSync 100, MatchLift 1000) when positive.
	MaxIter int
	// Progress, when set, is called from the iterative methods after each
	// iteration (and from the eigensolver after each component) with the
	// work done and the work planned.
	Progress func(done, total int)
}

func (o *Options) seed() uint64 {
	if o.Seed == 0 {
		return DefaultSeed
	}
	return o.Seed
}

func (o *Options) progress(done, total int) {
	if o.Progress != nil {
		o.Progress(done, total)
	}
}

func (o *Options) maxIter(def int) int {
	if o.MaxIter > 0 {
		return o.MaxIter
	}
	return def
}

// Result is one method's answer. Every method yields a set of associations;
// the ones that yield a partition (CLEAR, Spectral, NMFSync, QuickMatch,
// MatchLift) also give the item of every observation.
type Result struct {
	Method string
	// Pairs are the associated pairs of observations, A < B, sorted. For a
	// partition they are every two observations of one item. Pairs inside
	// one view can occur (MatchALS): they break distinctness and count as
	// wrong.
	Pairs []clear.Pair
	// Item is the item of every observation, numbered by first appearance,
	// when the method's output is a partition (consistent by construction);
	// nil otherwise.
	Item []int
	// Universe is the universe size the method was given.
	Universe int
	// Iterations run, and whether the stopping rule was met before the
	// cap, for the iterative methods.
	Iterations int
	Converged  bool
	// Time is the method's own time, without the universe estimate.
	Time time.Duration
}

// ErrTooLarge reports a problem beyond a method's memory limit.
type ErrTooLarge struct {
	Method       string
	Observations int
	Need, Limit  int64
	What         string
}

func (e *ErrTooLarge) Error() string {
	return fmt.Sprintf("multiway: %s needs %s for %d observations (%s), over the %s limit",
		e.Method, bytesString(e.Need), e.Observations, e.What, bytesString(e.Limit))
}

func bytesString(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
	default:
		return fmt.Sprintf("%d KiB", (b+1023)/1024)
	}
}

// ErrTooSlow reports a problem whose planned work is beyond the limit.
type ErrTooSlow struct {
	Method       string
	Observations int
	Universe     int
	Flop, Limit  float64
}

func (e *ErrTooSlow) Error() string {
	return fmt.Sprintf("multiway: %s plans %.1e floating-point operations for %d observations (universe %d), over the %.0e limit",
		e.Method, e.Flop, e.Observations, e.Universe, e.Limit)
}

// Work returns the floating-point work method plans at its iteration cap
// on a problem of l observations in v views whose largest connected
// component holds c, with universe size m: an upper bound of the order of
// its dominant steps (iterations usually stop earlier).
func Work(method string, l, c, m, v int) float64 {
	L, C, M, V := float64(l), float64(c), float64(min(m, l)), float64(v)
	eig := 9 * C * C * C
	switch method {
	case MatchALS:
		k := min(2*M, L)
		return alsMaxIter * 6 * k * L * L
	case NMFSync:
		return eig + nmfMaxIter*4*L*M*M + 2*V*(22*M*M*M+2*L*M*M)
	case MatchLift:
		return liftMaxIter * 11 * (L + 1) * (L + 1) * (L + 1)
	case QuickMatch:
		return 0
	}
	return eig
}

// ErrMethod reports an unknown method name.
var ErrMethod = errors.New("multiway: unknown method")

// Memory returns the bytes method plans to allocate on a problem of l
// observations whose largest connected component holds c, with universe
// size m, and what dominates it.
func Memory(method string, l, c, m int) (int64, string) {
	L, C, M := int64(l), int64(c), int64(m)
	eig := 3*C*C*8 + 2*L*M*8 // one component's dense decomposition, the kept vectors
	switch method {
	case CLEAR:
		return 3*C*C*8 + 2*L*M*8, "sparse, one component's dense eigendecomposition"
	case Spectral, MatchEIG:
		return eig, "one component's dense eigendecomposition and l×m̂ vectors"
	case NMFSync:
		return eig + 10*L*M*8, "one component's dense eigendecomposition, the 2m̂ leading eigenvectors and l×m̂ factors"
	case QuickMatch:
		return 64 * L, "linear in observations and associations"
	case MatchALS:
		return 5*L*L*4 + 4*L*2*M*4 + 2*M*L*8, "five dense l×l float32 matrices"
	case MatchLift:
		return 7 * (L + 1) * (L + 1) * 8, "seven dense (l+1)×(l+1) matrices"
	}
	return 0, ""
}

// EstimateUniverse returns CLEAR's universe size estimate for p: the number
// of eigenvalues of the normalized Laplacian below 0.5, at least the
// largest view. The paper's harness computes it once and hands it to every
// method.
func EstimateUniverse(ctx context.Context, p *clear.Problem) (int, error) {
	r, err := clear.SolveContext(ctx, p, nil)
	if err != nil {
		return 0, err
	}
	return r.UniverseSize, nil
}

// Run runs method on p. Invalid input returns a *clear.InputError naming
// the association or view; a problem past the memory limit an
// *ErrTooLarge; cancellation ctx's error.
func Run(ctx context.Context, method string, p *clear.Problem, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	known := false
	for _, m := range Methods {
		known = known || m == method
	}
	if !known {
		return nil, fmt.Errorf("%w %q", ErrMethod, method)
	}
	s, err := newSparse(p)
	if err != nil {
		return nil, err
	}
	m := opts.Universe
	if m < 0 {
		return nil, fmt.Errorf("multiway: universe size %d is negative", m)
	}
	largestView := 0
	for v := 0; v < s.views(); v++ {
		largestView = max(largestView, s.size(v))
	}
	if m == 0 && method != QuickMatch && method != CLEAR {
		if m, err = EstimateUniverse(ctx, p); err != nil {
			return nil, err
		}
	}
	if m != 0 && m < largestView {
		return nil, fmt.Errorf("%w: %d is smaller than the largest view (%d observations), so distinctness cannot hold", clear.ErrUniverseSize, m, largestView)
	}
	largest := 0
	for _, c := range s.components() {
		largest = max(largest, len(c))
	}
	limit := opts.MaxMemory
	if limit == 0 {
		limit = DefaultMaxMemory
	}
	if need, what := Memory(method, s.l, largest, m); limit > 0 && need > limit {
		return nil, &ErrTooLarge{Method: method, Observations: s.l, Need: need, Limit: limit, What: what}
	}
	flopLimit := opts.MaxFlop
	if flopLimit == 0 {
		flopLimit = DefaultMaxFlop
	}
	if w := Work(method, s.l, largest, m, s.views()); flopLimit > 0 && w > flopLimit {
		return nil, &ErrTooSlow{Method: method, Observations: s.l, Universe: m, Flop: w, Limit: flopLimit}
	}
	start := time.Now()
	var r *Result
	switch {
	case s.l == 0:
		r = &Result{Converged: true}
		if partition(method) {
			r.Item = []int{}
		}
	case method == CLEAR:
		var cr *clear.Result
		if cr, err = clear.SolveContext(ctx, p, &clear.Options{UniverseSize: m}); err == nil {
			r = &Result{Item: cr.Item, Universe: cr.UniverseSize}
		}
	case method == Spectral:
		r, err = spectral(ctx, s, m, opts)
	case method == MatchEIG:
		r, err = matchEIG(ctx, s, m, opts)
	case method == MatchALS:
		r, err = matchALS(ctx, s, m, opts)
	case method == NMFSync:
		r, err = nmfSync(ctx, s, m, opts)
	case method == QuickMatch:
		r, err = quickMatch(ctx, s, opts)
	case method == MatchLift:
		r, err = matchLift(ctx, s, m, opts)
	}
	if err != nil {
		return nil, err
	}
	r.Method = method
	if r.Item != nil {
		r.Item = Renumber(r.Item)
		r.Pairs = clear.PairsOf(r.Item)
	} else {
		sortPairs(r.Pairs)
	}
	if r.Universe == 0 {
		r.Universe = m
	}
	r.Time = time.Since(start)
	return r, nil
}

// renumber numbers items by first appearance.
func Renumber(item []int) []int {
	id := map[int]int{}
	out := make([]int, len(item))
	for i, it := range item {
		if it < 0 {
			out[i] = -1
			continue
		}
		n, ok := id[it]
		if !ok {
			n = len(id)
			id[it] = n
		}
		out[i] = n
	}
	return out
}

func sortPairs(ps []clear.Pair) {
	sort.Slice(ps, func(i, j int) bool {
		if ps[i].A != ps[j].A {
			return ps[i].A < ps[j].A
		}
		return ps[i].B < ps[j].B
	})
}

var errNotPD = errors.New("multiway: MatchALS's normal equations are not positive definite")

func errNotConverged(n int) error {
	return fmt.Errorf("multiway: eigendecomposition of a %d-observation component did not converge", n)
}

// partition reports whether method's output is a partition of the
// observations into items.
func partition(method string) bool { return method != MatchEIG && method != MatchALS }
