// Package compare runs the CLEAR paper's comparison of multi-view matching
// methods: the Monte Carlo grids of its synthetic study (Fig.
// "AgentCompare", its completed variant and Fig. "mEstimate") and the
// method table of a real dataset (Figs. "Hotel" and "Graffiti"), scored
// with the paper's metric, and draws them in the paper's form. It is pure
// Go: the problems come from multiway.Synthesize or from the caller.
package compare

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"time"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/multiway"
)

// DefaultMethods are the methods compared unless chosen: every one but
// MatchLift, whose O(l³) iterations take minutes per synthetic run (the
// paper switched it off for Hotel and Graffiti too).
var DefaultMethods = []string{multiway.CLEAR, multiway.Spectral, multiway.MatchEIG, multiway.MatchALS, multiway.NMFSync, multiway.QuickMatch}

// Score is one method's answer on one problem, scored as the paper does.
type Score struct {
	eval.Scores
	// Completed scores the transitive closure of the answer: what a
	// clique-centric user gets from an inconsistent one (the paper's Fig.
	// "completed"); equal to Scores for a partition.
	Completed  eval.Scores `json:"completed"`
	Consistent bool        `json:"cycle_consistent"`
	Distinct   bool        `json:"distinct"`
	Seconds    float64     `json:"seconds"`
	Iterations int         `json:"iterations,omitempty"`
	Universe   int         `json:"universe"`
}

// ScoreResult scores r against truth (the true item of every observation,
// −1 for none) with view[i] the view of observation i.
func ScoreResult(r *multiway.Result, truth, view []int) Score {
	l := len(truth)
	s := Score{Scores: eval.ScorePairs(truth, r.Pairs), Seconds: r.Time.Seconds(), Iterations: r.Iterations, Universe: r.Universe}
	if r.Item != nil {
		s.Consistent = true
		s.Completed = s.Scores
	} else {
		s.Consistent = eval.IsCycleConsistent(l, r.Pairs)
		s.Completed = eval.ScoreGroups(truth, eval.Closure(l, r.Pairs))
	}
	s.Distinct = eval.IsDistinct(view, r.Pairs)
	return s
}

// views returns the view of every observation of p.
func views(p *clear.Problem) []int {
	v := make([]int, 0, p.NumObservations())
	for i, n := range p.ViewSizes {
		for range n {
			v = append(v, i)
		}
	}
	return v
}

// MethodOptions are the options every method gets.
type MethodOptions struct {
	Seed      uint64
	MaxMemory int64
	MaxFlop   float64
}

// runMethod runs one method with the shared universe size m and scores it;
// a method that refuses the problem (too large) is reported, not fatal.
func runMethod(ctx context.Context, method string, p *clear.Problem, m int, truth, view []int, o MethodOptions, progress func(done, total int)) (Score, string, error) {
	r, err := multiway.Run(ctx, method, p, &multiway.Options{Universe: m, Seed: o.Seed, MaxMemory: o.MaxMemory, MaxFlop: o.MaxFlop, Progress: progress})
	if err != nil {
		if ctx.Err() != nil {
			return Score{}, "", ctx.Err()
		}
		var big *multiway.ErrTooLarge
		var slow *multiway.ErrTooSlow
		if errors.As(err, &big) || errors.As(err, &slow) {
			return Score{}, err.Error(), nil
		}
		return Score{}, "", fmt.Errorf("%s: %w", method, err)
	}
	return ScoreResult(r, truth, view), "", nil
}

// seedOf derives the seed of one run of one cell from the base seed, so
// that every cell is reproducible on its own.
func seedOf(base uint64, parts ...any) uint64 {
	h := fnv.New64a()
	fmt.Fprint(h, base)
	for _, p := range parts {
		fmt.Fprintf(h, "/%v", p)
	}
	return h.Sum64()
}

// RealRow is one method's row on a real dataset.
type RealRow struct {
	Method string `json:"method"`
	Score
	// Frequency is 1/Seconds, the paper's x axis.
	Frequency float64 `json:"frequency_hz"`
	Skipped   string  `json:"skipped,omitempty"`
}

// RealReport is the comparison on one real problem.
type RealReport struct {
	Dataset      string    `json:"dataset"`
	Protocol     string    `json:"protocol"`
	Observations int       `json:"observations"`
	Views        int       `json:"views"`
	Associations int       `json:"associations"`
	Universe     int       `json:"universe"`
	Input        eval.Row  `json:"input"`
	Rows         []RealRow `json:"methods"`
}

// Real runs every method on p (with truth) under one shared universe
// estimate, as the paper's harness does, and scores each.
func Real(ctx context.Context, dataset, protocol string, p *clear.Problem, truth []int, methods []string, o MethodOptions, progress func(method string, done, total int)) (*RealReport, error) {
	view := views(p)
	if len(truth) != len(view) {
		return nil, fmt.Errorf("compare: %d truth entries for %d observations", len(truth), len(view))
	}
	m, err := multiway.EstimateUniverse(ctx, p)
	if err != nil {
		return nil, err
	}
	input := make([]clear.Pair, 0, len(p.Associations))
	seen := map[clear.Pair]bool{}
	for _, a := range p.Associations {
		q := clear.Pair{A: min(a.A, a.B), B: max(a.A, a.B)}
		if q.A != q.B && !seen[q] {
			seen[q] = true
			input = append(input, q)
		}
	}
	rep := &RealReport{Dataset: dataset, Protocol: protocol, Observations: len(view), Views: len(p.ViewSizes),
		Associations: len(p.Associations), Universe: m, Input: eval.PairRow(truth, view, input)}
	for _, method := range methods {
		var pf func(int, int)
		if progress != nil {
			pf = func(d, t int) { progress(method, d, t) }
			progress(method, 0, 1)
		}
		s, skipped, err := runMethod(ctx, method, p, m, truth, view, o, pf)
		if err != nil {
			return nil, err
		}
		row := RealRow{Method: method, Score: s, Skipped: skipped}
		if s.Seconds > 0 {
			row.Frequency = 1 / s.Seconds
		}
		rep.Rows = append(rep.Rows, row)
		if progress != nil {
			progress(method, 1, 1)
		}
	}
	return rep, nil
}

// PaperCLEARGrid1 is the paper's saved CLEAR grid 1 (floor of 100·mean F1)
// for 5, 10 and 25 views at 5, 10, 15, 20 and 25% mismatch.
var PaperCLEARGrid1 = map[int][]int{
	5:  {96, 91, 86, 77, 71},
	10: {99, 98, 97, 94, 88},
	25: {100, 100, 100, 99, 99},
}

// percent is the paper's printed score: floor(100·f).
func percent(f float64) int { return int(math.Floor(100*f + 1e-9)) }

// elapsed formats a duration for reports.
func elapsed(d time.Duration) float64 { return math.Round(d.Seconds()*1000) / 1000 }
