package pipeline

import (
	"context"
	"time"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Solution is the solve stage's output, read-only afterwards: CLEAR's
// input and output, and the tracks it gives before the track stages.
type Solution struct {
	// Problem is CLEAR's input: the verified matches (or the ratio
	// matches without verification), observations numbered image by image.
	Problem *clear.Problem
	// Clear is CLEAR's output (union-find's with SolveOptions.UnionFind).
	Clear *clear.Result
	// Item is the track of every observation: Clear.Item less Foreign.
	Item []int
	// Foreign counts the observations CLEAR assigned to an item of
	// another component of the association graph, which the solve took
	// out of their tracks (dropForeign).
	Foreign int
	// Time is the solve's wall time.
	Time time.Duration
}

// Association is CLEAR's input for the scene's pairs: the verified
// matches (the ratio matches without verification), weighted as
// o.Weighted says.
func Association(scene *Scene, m *Matched, o SolveOptions) (*clear.Problem, error) {
	counts := make([]int, len(scene.Sets))
	for i, s := range scene.Sets {
		counts[i] = s.Len()
	}
	return pairwise.Problem(counts, m.Pairs(), o.Weighted)
}

// Run is the solve stage: CLEAR (or union-find, to compare) on the
// association of the scene's matched pairs, its progress to env's.
func (o SolveOptions) Run(ctx context.Context, env Env, scene *Scene, m *Matched) (*Solution, error) {
	pr := env.Progress
	p, err := Association(scene, m, o)
	if err != nil {
		return nil, err
	}
	t := time.Now()
	var res *clear.Result
	if o.UnionFind {
		res, err = unionFind(p)
	} else {
		co := o.Clear()
		if sr, ok := pr.(StatusReporter); ok && co.Status == nil && co.Progress == nil {
			co.Status = func(st clear.SolveStatus) { sr.Status(StageSolve, st.Done, st.Total, st.String()) }
		} else if co.Progress == nil && pr != nil {
			co.Progress = stageProgress(pr, StageSolve)
		}
		res, err = clear.SolveContext(ctx, p, &co)
	}
	if err != nil {
		return nil, err
	}
	sol, err := NewSolution(p, res)
	if err != nil {
		return nil, err
	}
	sol.Time = time.Since(t)
	return sol, nil
}

// NewSolution is the solution of p that res gives, CLEAR's result for p
// computed elsewhere (clearmatch-beam's, component by component): the
// tracks are res's items less the foreign observations.
func NewSolution(p *clear.Problem, res *clear.Result) (*Solution, error) {
	item, foreign, err := dropForeign(p, res.Item)
	if err != nil {
		return nil, err
	}
	return &Solution{Problem: p, Clear: res, Item: item, Foreign: foreign}, nil
}
