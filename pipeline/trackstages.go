package pipeline

import (
	"context"
	"time"

	"github.com/clearmatch/clearmatch/tracks"
)

// trackStages runs the stages after CLEAR (package tracks) in order, each
// on the previous one's output, and records their results and times.
func (r *Result) trackStages(ctx context.Context, opts Options) error {
	v := r.trackViews(opts)
	t := tracks.Tracks{Item: r.Item, Solved: r.Item, Keypoints: r.Sets, Pairs: r.Verified}
	o := opts.Tracks
	var err error
	var refined tracks.RefineStats
	lap := stopwatch()
	if t, r.Completed, err = tracks.Complete(ctx, v, t, o.Complete); err != nil {
		return err
	}
	r.Timing.Complete = lap()
	if t, refined, err = tracks.Refine(ctx, v, t, o.Refine); err != nil {
		return err
	}
	r.Timing.Refine = lap()
	if t, r.Weak, err = tracks.FilterWeak(ctx, v, t, o.Weak); err != nil {
		return err
	}
	r.Timing.Weak = lap()
	if r.SelfCalibration, err = tracks.SelfCalibrate(ctx, v, t, o.Calibrate); err != nil {
		return err
	}
	r.Timing.Calibrate = lap()
	if t, r.Reproj, err = tracks.FilterReproj(ctx, v, t, r.SelfCalibration, o.Reproj); err != nil {
		return err
	}
	r.Timing.Reproj = lap()
	if t, _, err = tracks.DropShort(ctx, v, t, o.MinTrack); err != nil {
		return err
	}
	r.Item, r.Verified = t.Item, t.Pairs
	if refined.Ran {
		r.Refined, r.Refinement, r.Unconfirmed = t.Keypoints, refined.Stats, refined.Unconfirmed
	}
	return nil
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
