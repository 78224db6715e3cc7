package clear

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestMaxComponentSplits(t *testing.T) {
	// Two clean tracks of 5 views each, joined by one wrong association:
	// the bridge closes no triangle, so it is the one cut.
	p := &Problem{ViewSizes: []int{2, 2, 2, 2, 2}}
	obs := func(view, k int) int { return 2*view + k }
	for k := 0; k < 2; k++ {
		for a := 0; a < 5; a++ {
			for b := a + 1; b < 5; b++ {
				p.Associations = append(p.Associations, Association{A: obs(a, k), B: obs(b, k)})
			}
		}
	}
	p.Associations = append(p.Associations, Association{A: obs(0, 0), B: obs(3, 1)}) // the bridge
	for _, tc := range []struct {
		limit, largest, split, cut int
	}{
		{0, 10, 0, 0},  // exact: one component of 10
		{10, 10, 0, 0}, // at the limit: untouched
		{5, 5, 1, 1},   // split: only the bridge goes
	} {
		r, err := Solve(p, &Options{MaxComponent: tc.limit})
		if err != nil {
			t.Fatal(err)
		}
		if r.LargestComponent != tc.largest || r.SplitComponents != tc.split || r.CutAssociations != tc.cut {
			t.Errorf("limit %d: largest %d, split %d, cut %d; want %d, %d, %d", tc.limit, r.LargestComponent, r.SplitComponents, r.CutAssociations, tc.largest, tc.split, tc.cut)
		}
		if tc.limit == 5 {
			for k := 0; k < 2; k++ {
				for v := 1; v < 5; v++ {
					if r.Item[obs(v, k)] != r.Item[obs(0, k)] {
						t.Errorf("track %d broken at view %d: %v", k, v, r.Item)
					}
				}
			}
		}
	}
}

func TestMaxComponentBoundsRandom(t *testing.T) {
	s := Synthesize(SynthConfig{Items: 60, Views: 40, ObsRatio: 1, Mismatch: 0.1, Seed: 4})
	exact, err := Solve(s.Problem, nil)
	if err != nil {
		t.Fatal(err)
	}
	const limit = 500
	if exact.LargestComponent <= limit {
		t.Fatalf("the test needs a component over %d, has %d", limit, exact.LargestComponent)
	}
	r, err := Solve(s.Problem, &Options{MaxComponent: limit})
	if err != nil {
		t.Fatal(err)
	}
	if r.LargestComponent > limit || r.SplitComponents == 0 {
		t.Fatalf("largest component %d after splitting at %d (%d split)", r.LargestComponent, limit, r.SplitComponents)
	}
	// The output stays consistent and distinct: one observation per view
	// and item.
	seen := map[[2]int]bool{}
	vi := newViewIndex(s.Problem.ViewSizes)
	for i, it := range r.Item {
		k := [2]int{it, vi.view(i)}
		if seen[k] {
			t.Fatalf("item %d holds two observations of view %d", it, k[1])
		}
		seen[k] = true
	}
	// Splitting is deterministic.
	r2, _ := Solve(s.Problem, &Options{MaxComponent: limit})
	for i := range r.Item {
		if r.Item[i] != r2.Item[i] {
			t.Fatal("two splits differ")
		}
	}
}

func TestSolveContextCancel(t *testing.T) {
	s := Synthesize(SynthConfig{Items: 100, Views: 30, ObsRatio: 1, Mismatch: 0.2, Seed: 5})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, e := range []Eigensolver{EigenAuto, EigenDense} {
		start := time.Now()
		_, err := SolveContext(ctx, s.Problem, &Options{Eigensolver: e})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("eigensolver %d: err %v, want context.Canceled", e, err)
		}
		if el := time.Since(start); el > 2*time.Second {
			t.Errorf("eigensolver %d: a cancelled solve took %v", e, el)
		}
	}
	var calls, last int
	_, err := SolveContext(context.Background(), s.Problem, &Options{Progress: func(done, total int) { calls++; last = done }})
	if err != nil || calls == 0 || last != s.Problem.NumObservations() {
		t.Errorf("progress: %d calls, last %d of %d (err %v)", calls, last, s.Problem.NumObservations(), err)
	}
}

// TestSolveCancelLeavesNoGoroutine cancels solves part-way, on the
// iterative eigensolver (whose helpers spin) and on the dense one: no
// goroutine of theirs outlives the call.
func TestSolveCancelLeavesNoGoroutine(t *testing.T) {
	// The iterative solve is cancelled at its first progress beat, the
	// dense one (a single component of 800, which reports no progress
	// before it ends) 20 ms in.
	s := Synthesize(SynthConfig{Items: 40, Views: 20, ObsRatio: 1, Mismatch: 0.2, Seed: 5})
	for _, e := range []Eigensolver{EigenIterative, EigenDense} {
		before := runtime.NumGoroutine()
		ctx, cancel := context.WithCancel(context.Background())
		o := &Options{Eigensolver: e, Progress: func(done, total int) { cancel() }}
		if e == EigenDense {
			o.Progress = nil
			time.AfterFunc(20*time.Millisecond, cancel)
		}
		_, err := SolveContext(ctx, s.Problem, o)
		cancel()
		if !errors.Is(err, context.Canceled) {
			t.Errorf("eigensolver %d: err %v, want context.Canceled", e, err)
		}
		if after := runtime.NumGoroutine(); after > before {
			t.Errorf("eigensolver %d: %d goroutines before, %d after", e, before, after)
		}
	}
}

// TestSolveStatus: Status names the component under way and counts the
// Lanczos steps of a large one; the last call has every observation done.
func TestSolveStatus(t *testing.T) {
	s := Synthesize(SynthConfig{Items: 100, Views: 30, ObsRatio: 1, Mismatch: 0.2, Seed: 5})
	var sts []SolveStatus
	_, err := SolveContext(context.Background(), s.Problem, &Options{Eigensolver: EigenIterative, Status: func(st SolveStatus) { sts = append(sts, st) }})
	if err != nil || len(sts) == 0 {
		t.Fatalf("%d status calls, %v", len(sts), err)
	}
	l := s.Problem.NumObservations()
	steps := 0
	for _, st := range sts {
		if st.Total != l || st.Component < 1 || st.Component > st.Components || st.Size < 1 {
			t.Fatalf("status %+v", st)
		}
		steps = max(steps, st.Steps)
	}
	if last := sts[len(sts)-1]; last.Done != l || last.Component != last.Components {
		t.Errorf("last status %+v, want all %d done", last, l)
	}
	if steps == 0 || !strings.Contains(sts[0].String(), "component 1 of ") {
		t.Errorf("no Lanczos steps reported (%d), or %q", steps, sts[0].String())
	}
}
