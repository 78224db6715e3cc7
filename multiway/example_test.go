package multiway_test

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/multiway"
)

// Three views of two items, with one wrong association (1–4) among the
// correct ones. Every method gets the same problem and universe size.
func ExampleRun() {
	p := &clear.Problem{ViewSizes: []int{2, 2, 2}, Associations: []clear.Association{
		{A: 0, B: 2}, {A: 1, B: 3}, {A: 2, B: 4}, {A: 3, B: 5}, {A: 0, B: 4}, {A: 1, B: 5}, {A: 1, B: 4}}}
	view := []int{0, 0, 1, 1, 2, 2}
	for _, m := range []string{multiway.CLEAR, multiway.Spectral, multiway.MatchEIG, multiway.QuickMatch} {
		r, err := multiway.Run(context.Background(), m, p, &multiway.Options{Universe: 2})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-10s %v consistent=%v distinct=%v\n", m, r.Pairs,
			eval.IsCycleConsistent(6, r.Pairs), eval.IsDistinct(view, r.Pairs))
	}
	// Output:
	// clear      [{0 2} {0 4} {1 3} {1 5} {2 4} {3 5}] consistent=true distinct=true
	// spectral   [{0 2} {0 4} {1 3} {1 5} {2 4} {3 5}] consistent=true distinct=true
	// matcheig   [{0 2} {0 4} {1 3} {1 5} {2 4} {3 5}] consistent=true distinct=true
	// quickmatch [{0 2} {0 4} {1 3} {1 5} {2 4} {3 5}] consistent=true distinct=true
}

// The paper's synthetic problems: 10 views of a 100-item universe, each
// observing half of it, with 10% mismatches.
func ExampleSynthesize() {
	s := multiway.Synthesize(multiway.SynthConfig{Items: 100, Views: 10, ObsRatio: 0.5, Mismatch: 0.1, Seed: 1})
	m, _ := multiway.EstimateUniverse(context.Background(), s.Problem)
	fmt.Println(len(s.Problem.ViewSizes), "views,", len(s.Truth), "observations, universe estimate", m)
	// Output: 10 views, 500 observations, universe estimate 103
}
