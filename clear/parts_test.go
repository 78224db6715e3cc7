package clear

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// sparseProblem is a synthetic problem with a fraction of its associations
// dropped, and extra observations without any in every view, so it has
// many parts, singletons, and views with more rows than items of a part.
func sparseProblem(cfg SynthConfig, keep float64, extra int) *Problem {
	p := Synthesize(cfg).Problem
	rng := rand.New(rand.NewPCG(cfg.Seed, 7))
	vi := newViewIndex(p.ViewSizes)
	q := &Problem{ViewSizes: slices.Clone(p.ViewSizes)}
	for v := range q.ViewSizes {
		q.ViewSizes[v] += extra
	}
	shift := func(o int) int { return o + extra*vi.view(o) }
	for _, a := range p.Associations {
		if rng.Float64() < keep {
			q.Associations = append(q.Associations, Association{A: shift(a.A), B: shift(a.B), W: a.W})
		}
	}
	return q
}

// TestSolvePartsIsSolve checks that CLEAR run part by part, in the steps
// a distributed solve takes, gives Solve's items and counts exactly.
func TestSolvePartsIsSolve(t *testing.T) {
	type tc struct {
		name string
		p    *Problem
		o    Options
	}
	var cases []tc
	for seed := uint64(1); seed <= 8; seed++ {
		cfg := SynthConfig{Items: 25 + int(seed)*5, Views: 5 + int(seed%3), ObsRatio: 0.7, Mismatch: 0.2, Seed: seed}
		cases = append(cases,
			tc{fmt.Sprintf("whole %d", seed), Synthesize(cfg).Problem, Options{}},
			tc{fmt.Sprintf("sparse %d", seed), sparseProblem(cfg, 0.35, 3), Options{}},
			tc{fmt.Sprintf("sparse hungarian %d", seed), sparseProblem(cfg, 0.5, 2), Options{Assignment: Hungarian}},
			tc{fmt.Sprintf("split %d", seed), Synthesize(cfg).Problem, Options{MaxComponent: 12}},
			tc{fmt.Sprintf("iterative %d", seed), sparseProblem(cfg, 0.8, 1), Options{Eigensolver: EigenIterative, Seed: seed}},
		)
	}
	for _, name := range []string{"hotel-sift.txt", "graffiti-sift.txt"} {
		p := loadProblem(t, filepath.Join(sharedDir(t), "testdata", "problems", name))
		cases = append(cases, tc{name, p, Options{}}, tc{name + " split", p, Options{MaxComponent: 100}})
	}
	whole := 0
	for _, c := range cases {
		want, err := Solve(c.p, &c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := SolveParts(context.Background(), c.p, &c.o)
		if errors.Is(err, ErrWholeSolve) {
			whole++
			if want.UniverseSize == want.BelowThreshold {
				t.Errorf("%s: ErrWholeSolve, but the universe (%d) is the eigenvalue count", c.name, want.UniverseSize)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !slices.Equal(got.Item, want.Item) {
			t.Errorf("%s: items differ from Solve's", c.name)
		}
		want.Timing = Timing{}
		if fmt.Sprintf("%+v", *got) != fmt.Sprintf("%+v", *want) {
			t.Errorf("%s: result\n%+v, Solve's\n%+v", c.name, *got, *want)
		}
	}
	if whole > len(cases)/4 {
		t.Errorf("%d of %d problems needed the whole solve", whole, len(cases))
	}
}
