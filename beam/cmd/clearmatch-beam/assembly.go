package main

import (
	"context"
	"fmt"
	"io"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pipeline"
	"github.com/clearmatch/clearmatch/tracks"
)

// assembly runs match's stages in the launcher, on what the workers left:
// extraction and the pairs read from the caches they filled, CLEAR's
// solution from its parts when the pipeline solved it, and the track
// stages with refinement's alignment on the workers.
type assembly struct {
	solved  *solved
	refiner *refiner
	warn    io.Writer
}

// run is a match.Runner: pipeline.Run's stages, called one by one.
func (a *assembly) run(ctx context.Context, images []pipeline.Image, camera geom.Intrinsics, opts pipeline.Options) (*pipeline.Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	ex, err := opts.Features.Run(ctx, opts.Env, images)
	if err != nil {
		return nil, err
	}
	scene := ex.Scene
	scene.Camera = camera
	m, err := opts.PairStage().Run(ctx, opts.Env, scene)
	if err != nil {
		return nil, err
	}
	sol, err := a.solve(ctx, scene, m, opts)
	if err != nil {
		return nil, err
	}
	stages := opts.Tracks.Stages()
	for k, st := range stages {
		if o, ok := st.(tracks.RefineOptions); ok {
			stages[k] = refineStage{o, a.refiner}
		}
	}
	r, err := pipeline.Track(ctx, opts.Env, scene, m, sol, stages)
	if err != nil {
		return nil, err
	}
	ex.Record(r)
	return r, nil
}

// solve is the pipeline's solution when it solved this problem in parts;
// otherwise (it left CLEAR to the assembly, or, a bug said so, the
// problems differ) the whole solve.
func (a *assembly) solve(ctx context.Context, scene *pipeline.Scene, m *pipeline.Matched, opts pipeline.Options) (*pipeline.Solution, error) {
	s := a.solved
	if s.result == nil || opts.Solve.UnionFind {
		return opts.Solve.Run(ctx, opts.Env, scene, m)
	}
	p, err := pipeline.Association(scene, m, opts.Solve)
	if err != nil {
		return nil, err
	}
	if n := p.NumObservations(); n != s.cut.L || int64(len(p.Associations)) != s.cut.Edges {
		fmt.Fprintf(a.warn, "%s: warning: the pipeline solved CLEAR for %d observations and %d associations, the assembly has %d and %d; solving it whole\n",
			prog, s.cut.L, s.cut.Edges, n, len(p.Associations))
		return opts.Solve.Run(ctx, opts.Env, scene, m)
	}
	return pipeline.NewSolution(p, s.result)
}

// refineStage is the refinement stage with its alignment on the workers.
type refineStage struct {
	tracks.RefineOptions
	r *refiner
}

func (s refineStage) Run(ctx context.Context, v *tracks.Views, t tracks.Tracks) (tracks.Tracks, tracks.Stats, error) {
	t, st, err := tracks.RefineWith(ctx, v, t, s.RefineOptions, s.r.refine)
	return t, st, err
}
