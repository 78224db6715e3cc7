package pipeline

import (
	"context"
	"time"

	"github.com/clearmatch/clearmatch/tracks"
)

// Track is the track stages' run: each of stages (Options.Tracks.Stages(),
// or a caller's list: clearmatch-beam swaps in its own refinement) on the
// previous one's tracks, starting from the solution's. The Result holds
// every stage's output, stats and time.
func Track(ctx context.Context, env Env, scene *Scene, m *Matched, sol *Solution, stages []tracks.Stage) (*Result, error) {
	r := &Result{Scene: scene, Matched: m, Solution: sol, Item: sol.Item, Verified: m.Verified}
	r.Timing.Select, r.Timing.Match, r.Timing.Verify, r.Timing.Solve = m.Time.Select, m.Time.Match, m.Time.Verify, sol.Time
	v := r.trackViews(env)
	t := tracks.Tracks{Item: sol.Item, Solved: sol.Item, Keypoints: scene.Sets, Pairs: m.Verified}
	lap := stopwatch()
	for _, stage := range stages {
		var st tracks.Stats
		var err error
		if t, st, err = stage.Run(ctx, v, t); err != nil {
			return nil, err
		}
		r.record(st, lap())
	}
	r.Item, r.Verified = t.Item, t.Pairs
	if r.Refinement.Ran {
		r.Refined = t.Keypoints
	}
	return r, nil
}

// record keeps a track stage's stats and time in the result.
func (r *Result) record(st tracks.Stats, d time.Duration) {
	switch st := st.(type) {
	case tracks.CompleteStats:
		r.Completed, r.Timing.Complete = st.Added, d
	case tracks.RefineStats:
		r.Refinement, r.Timing.Refine = st, d
	case tracks.WeakStats:
		r.Weak, r.Timing.Weak = st, d
	case tracks.CalibrateStats:
		r.SelfCalibration, r.Timing.Calibrate = st.Result, d
	case tracks.ReprojStats:
		r.Reproj, r.Timing.Reproj = st, d
	case tracks.MinTrackStats:
		r.MinTrack = st
	}
}

// trackViews is what the track stages read: the scene's features, image
// files (when every image has one), scales and camera, the thresholds;
// their workers, progress and scratch folder (the feature cache's) are
// env's.
func (r *Result) trackViews(env Env) *tracks.Views {
	v := &tracks.Views{Sets: r.Sets, MaxPixels: r.MaxPixels, Grays: r.grays, Threshold: r.PixelThreshold,
		Intrinsics: r.Camera, Workers: env.Workers, Scratch: env.Cache.Features, Progress: trackProgress(env.Progress)}
	if r.PixelThreshold > 0 { // verified: thresholds scale with detection
		v.Scale = r.Scale
	}
	v.Paths = make([]string, len(r.Images))
	for i, im := range r.Images {
		v.Paths[i] = im.Path
	}
	return v
}

// stopwatch returns a function that returns the time since the previous
// call (the first: since stopwatch).
func stopwatch() func() time.Duration {
	start := time.Now()
	return func() time.Duration {
		now := time.Now()
		d := now.Sub(start)
		start = now
		return d
	}
}
