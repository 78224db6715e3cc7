package multiway

import (
	"context"
	"errors"
	"reflect"
	"runtime"
	"testing"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
)

// viewOf returns the view of every observation of p.
func viewOf(p *clear.Problem) []int {
	var view []int
	for v, n := range p.ViewSizes {
		for range n {
			view = append(view, v)
		}
	}
	return view
}

// quick caps the iterative methods so that the tests stay fast; the
// problems here converge well before.
var quick = &Options{MaxIter: 300}

func TestNoiseless(t *testing.T) {
	// Problems whose answer is known: the truth's own associations.
	tiny := &clear.Problem{ViewSizes: []int{2, 2, 2}, Associations: []clear.Association{
		{A: 0, B: 3}, {A: 1, B: 2}, {A: 2, B: 5}, {A: 3, B: 4}, {A: 1, B: 5}, {A: 0, B: 4}}}
	cases := []struct {
		name  string
		p     *clear.Problem
		truth []int
	}{
		{"two items in three views", tiny, []int{0, 1, 1, 0, 0, 1}},
	}
	for _, c := range []SynthConfig{
		{Items: 8, Views: 4, ObsRatio: 1, Seed: 1},
		{Items: 20, Views: 6, ObsRatio: 0.5, Seed: 2},
		{Items: 30, Views: 5, ObsRatio: 0.8, Seed: 3},
	} {
		s := Synthesize(c)
		cases = append(cases, struct {
			name  string
			p     *clear.Problem
			truth []int
		}{"synthetic", s.Problem, s.Truth})
	}
	for _, c := range cases {
		for _, m := range Methods {
			r, err := Run(context.Background(), m, c.p, quick)
			if err != nil {
				t.Fatalf("%s %s: %v", c.name, m, err)
			}
			if sc := eval.ScorePairs(c.truth, r.Pairs); sc.F1 != 1 {
				t.Errorf("%s %s: F1 %v (%d of %d returned correct, %d true)", c.name, m, sc.F1, sc.Correct, sc.Returned, sc.GT)
			}
		}
	}
}

func TestGuarantees(t *testing.T) {
	// Noisy problems: every partition method stays consistent and
	// distinct; MatchEIG stays distinct; MatchALS need not be either.
	for _, c := range []SynthConfig{
		{Items: 30, Views: 6, ObsRatio: 0.5, Mismatch: 0.2, Seed: 4},
		{Items: 40, Views: 4, ObsRatio: 0.9, Mismatch: 0.3, Seed: 5},
		{Items: 20, Views: 8, ObsRatio: 0.3, Mismatch: 0.1, Seed: 6},
	} {
		s := Synthesize(c)
		view := viewOf(s.Problem)
		l := len(view)
		for _, m := range Methods {
			r, err := Run(context.Background(), m, s.Problem, quick)
			if err != nil {
				t.Fatalf("%+v %s: %v", c, m, err)
			}
			cons, dist := eval.IsCycleConsistent(l, r.Pairs), eval.IsDistinct(view, r.Pairs)
			if partition(m) && (!cons || !dist || r.Item == nil) {
				t.Errorf("%+v %s: consistent %v, distinct %v, item %v", c, m, cons, dist, r.Item != nil)
			}
			if m == MatchEIG && !dist {
				t.Errorf("%+v matcheig: not distinct", c)
			}
			if !partition(m) && r.Item != nil {
				t.Errorf("%+v %s: an item per observation from a method without a partition", c, m)
			}
			if sc := eval.ScorePairs(s.Truth, r.Pairs); sc.F1 < 0.3 {
				t.Errorf("%+v %s: F1 %.3f", c, m, sc.F1)
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	s := Synthesize(SynthConfig{Items: 40, Views: 6, ObsRatio: 0.6, Mismatch: 0.15, Seed: 7})
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, m := range Methods {
		var got [][]clear.Pair
		for _, procs := range []int{1, 4, 1} {
			runtime.GOMAXPROCS(procs)
			// Determinism needs no convergence: 60 iterations suffice.
			r, err := Run(context.Background(), m, s.Problem, &Options{MaxIter: 60})
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, r.Pairs)
		}
		if !reflect.DeepEqual(got[0], got[1]) || !reflect.DeepEqual(got[0], got[2]) {
			t.Errorf("%s: output depends on the run or GOMAXPROCS", m)
		}
	}
	// A different seed may change MatchALS's answer but not its validity.
	if _, err := Run(context.Background(), MatchALS, s.Problem, &Options{Seed: 99, MaxIter: 50}); err != nil {
		t.Fatal(err)
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	ok := &clear.Problem{ViewSizes: []int{2, 2}, Associations: []clear.Association{{A: 0, B: 2}}}
	var ie *clear.InputError
	var big *ErrTooLarge
	var slow *ErrTooSlow
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	for _, c := range []struct {
		name   string
		method string
		p      *clear.Problem
		opts   *Options
		check  func(error) bool
	}{
		{"unknown method", "bogus", ok, nil, func(e error) bool { return errors.Is(e, ErrMethod) }},
		{"index out of range", Spectral, &clear.Problem{ViewSizes: []int{2, 2}, Associations: []clear.Association{{A: 0, B: 4}}}, nil,
			func(e error) bool { return errors.As(e, &ie) && ie.Index == 0 }},
		{"weight", NMFSync, &clear.Problem{ViewSizes: []int{2, 2}, Associations: []clear.Association{{A: 0, B: 2, W: 2}}}, nil,
			func(e error) bool { return errors.As(e, &ie) }},
		{"negative view", QuickMatch, &clear.Problem{ViewSizes: []int{2, -1}}, nil, func(e error) bool { return errors.As(e, &ie) && ie.Index == -1 }},
		{"universe below a view", MatchEIG, ok, &Options{Universe: 1}, func(e error) bool { return errors.Is(e, clear.ErrUniverseSize) }},
		{"memory", MatchLift, ok, &Options{MaxMemory: 10}, func(e error) bool { return errors.As(e, &big) && big.Method == MatchLift }},
		{"work", MatchALS, ok, &Options{MaxFlop: 100}, func(e error) bool { return errors.As(e, &slow) && slow.Method == MatchALS }},
		{"cancelled", MatchALS, ok, &Options{Universe: 2}, func(e error) bool { return errors.Is(e, context.Canceled) }},
	} {
		c2 := ctx
		if c.name == "cancelled" {
			c2 = cancelled
		}
		_, err := Run(c2, c.method, c.p, c.opts)
		if err == nil || !c.check(err) {
			t.Errorf("%s: error %v", c.name, err)
		}
	}
	if msg := (&ErrTooLarge{Method: MatchALS, Observations: 30000, Need: 36 << 30, Limit: 4 << 30, What: "five dense l×l matrices"}).Error(); msg !=
		"multiway: matchals needs 36.0 GiB for 30000 observations (five dense l×l matrices), over the 4.0 GiB limit" {
		t.Errorf("message %q", msg)
	}
}

func TestEmptyAndEdge(t *testing.T) {
	for _, p := range []*clear.Problem{
		{},
		{ViewSizes: []int{0, 3}},
		{ViewSizes: []int{3}},
		{ViewSizes: []int{1, 1}, Associations: []clear.Association{{A: 0, B: 1}, {A: 1, B: 0}, {A: 0, B: 0}}},
	} {
		for _, m := range Methods {
			r, err := Run(context.Background(), m, p, quick)
			if err != nil {
				t.Errorf("%v %s: %v", p.ViewSizes, m, err)
				continue
			}
			if partition(m) && len(r.Item) != p.NumObservations() {
				t.Errorf("%v %s: %d items", p.ViewSizes, m, len(r.Item))
			}
		}
	}
}

func TestSynthesize(t *testing.T) {
	a := Synthesize(SynthConfig{Items: 100, Views: 10, ObsRatio: 0.5, Mismatch: 0.1, Seed: 3})
	b := Synthesize(SynthConfig{Items: 100, Views: 10, ObsRatio: 0.5, Mismatch: 0.1, Seed: 3})
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different problems")
	}
	if got := a.Problem.ViewSizes; len(got) != 10 || got[0] != 50 || len(a.Truth) != 500 {
		t.Fatalf("sizes %v, %d truths", got, len(a.Truth))
	}
	clean := Synthesize(SynthConfig{Items: 100, Views: 10, ObsRatio: 0.5, Seed: 3})
	if sc := eval.ScorePairs(clean.Truth, pairsOf(clean.Problem)); sc.F1 != 1 {
		t.Errorf("noiseless problem F1 %v", sc.F1)
	}
	// Wrong associations: each disturbed row moves its match, so their
	// number is at most round(mismatch·Σ min(m_i, m_j)) and, with this
	// many view pairs, not far below.
	sc := eval.ScorePairs(a.Truth, pairsOf(a.Problem))
	wrong := sc.Returned - sc.Correct
	if limit := int64(0.1 * 45 * 50); wrong > limit || wrong < limit/4 {
		t.Errorf("%d wrong associations for a budget of %d", wrong, limit)
	}
}

func pairsOf(p *clear.Problem) []clear.Pair {
	out := make([]clear.Pair, len(p.Associations))
	for k, a := range p.Associations {
		out[k] = clear.Pair{A: min(a.A, a.B), B: max(a.A, a.B)}
	}
	return out
}

func TestEigengap(t *testing.T) {
	// Full observation without noise: every item is a clique of n views,
	// whose normalized Laplacian has one 0 and n−1 eigenvalues n/(n−1);
	// the largest gap follows the m zeros.
	s := Synthesize(SynthConfig{Items: 12, Views: 5, ObsRatio: 1, Seed: 1})
	if m, err := EigengapUniverse(context.Background(), s.Problem); err != nil || m != 12 {
		t.Errorf("eigengap %d, %v; want 12", m, err)
	}
	if m, _ := EstimateUniverse(context.Background(), s.Problem); m != 12 {
		t.Errorf("CLEAR's estimate %d, want 12", m)
	}
}

func TestHungarianMax(t *testing.T) {
	for _, c := range []struct {
		w    []float64
		r, c int
		want []int
	}{
		{[]float64{1, 0, 0, 1}, 2, 2, []int{0, 1}},
		{[]float64{0.9, 1, 0, 0.2}, 2, 2, []int{0, 1}}, // 0.9+0.2 beats 1+0
		{[]float64{0.1, 0.8, 0.3, 0.9, 0.7, 0.2}, 2, 3, []int{1, 0}},
		{[]float64{5, 1, 2}, 1, 3, []int{0}},
	} {
		if got := hungarianMax(c.w, c.r, c.c); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: %v, want %v", c.w, got, c.want)
		}
	}
}
