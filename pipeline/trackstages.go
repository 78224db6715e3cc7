package pipeline

import (
	"context"
	"time"

	"github.com/clearmatch/clearmatch/tracks"
)

// trackStages runs the stages after CLEAR (package tracks) in order, each
// on the previous one's output, and records their stats and times.
func (r *Result) trackStages(ctx context.Context, opts Options) error {
	v := r.trackViews(opts)
	t := tracks.Tracks{Item: r.Item, Solved: r.Item, Keypoints: r.Sets, Pairs: r.Verified}
	lap := stopwatch()
	for _, stage := range opts.Tracks.Stages() {
		var st tracks.Stats
		var err error
		if t, st, err = stage.Run(ctx, v, t); err != nil {
			return err
		}
		r.record(st, lap())
	}
	r.Item, r.Verified = t.Item, t.Pairs
	if r.Refinement.Ran {
		r.Refined = t.Keypoints
	}
	return nil
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

// trackViews is what the track stages read: the features, the image
// files (when every image has one), the thresholds and the intrinsics;
// their scratch folder is the feature cache's.
func (r *Result) trackViews(opts Options) *tracks.Views {
	v := &tracks.Views{Sets: r.Sets, MaxPixels: opts.Features.MaxPixels, Grays: opts.grays, Threshold: r.PixelThreshold, Scale: r.PixelScale,
		Intrinsics: opts.Verification.Intrinsics, Workers: opts.Workers, Scratch: opts.Cache.Features, Progress: trackProgress(opts.Progress)}
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
