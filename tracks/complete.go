package tracks

import (
	"context"
	"fmt"
	"math"
)

// Track completion adds to tracks the observations that matching missed:
// for a track seen in views a and b and a third view c verified with both,
// the point must lie on the epipolar lines of its observations in c (x_cᵀ
// F_ac x_a = 0 and x_cᵀ F_bc x_b = 0), so where two lines cross at a clear
// angle they fix where to look, and a keypoint there whose descriptor is
// close to the track's joins it. This is epipolar transfer (Hartley and
// Zisserman, §15.3), the pairwise form of what an SfM engine's track
// completion does with a reconstruction. Longer tracks give an incremental
// mapper more than two views per point: COLMAP's mapper ignores two-view
// tracks when it triangulates, and a view tied to the rest by few
// multi-view tracks is registered late and loosely.

// Stage names, as Views.Progress receives them.
const (
	// StageComplete counts the tracks completion proposed observations
	// for, StageCompletePairs then the image pairs whose descriptors it
	// compared.
	StageComplete      = "complete"
	StageCompletePairs = "complete-pairs"
	// StageRefine counts the images read (twice each) to refine tracks.
	StageRefine = "refine"
)

// The defaults of CompleteOptions.
const (
	DefaultCompleteThreshold   = 2
	DefaultCompleteAngle       = 10
	DefaultCompleteLines       = 2
	DefaultCompletePairMatches = 30
	DefaultCompleteDistance    = 400
)

// CompleteOptions configure Complete. The zero value is the default.
type CompleteOptions struct {
	// Off skips the stage.
	Off bool
	// Threshold is the Sampson distance, in pixels of the detection
	// resolution (scaled per view by Views.Scale), that a candidate may
	// have from each epipolar line of the track's observations in views
	// verified with its own; 0 means DefaultCompleteThreshold.
	Threshold float64
	// MinAngle is the least angle, in degrees, between the two epipolar
	// lines that cross most steeply: lines nearly parallel (cameras nearly
	// in a line) fix no point; 0 means DefaultCompleteAngle.
	MinAngle float64
	// MinLines is the least number of epipolar lines (track observations
	// in views verified with the candidate's view by F or E); at least 2;
	// 0 means DefaultCompleteLines.
	MinLines int
	// MinPairMatches is the fewest verified matches of a pair whose F
	// gives lines: an F fitted to few matches is too loose to transfer
	// through; 0 means DefaultCompletePairMatches, twice the fewest
	// inliers of a verified pair.
	MinPairMatches int
	// MaxDistance caps the Euclidean SIFT descriptor distance (norm 512)
	// between the candidate and the nearest of the track's observations;
	// 0 means DefaultCompleteDistance.
	MaxDistance float64
}

// ApplyDefaults fills the fields left 0 with the values they stand for.
func (o *CompleteOptions) ApplyDefaults() {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&o.Threshold, DefaultCompleteThreshold)
	def(&o.MinAngle, DefaultCompleteAngle)
	def(&o.MaxDistance, DefaultCompleteDistance)
	if o.MinLines == 0 {
		o.MinLines = DefaultCompleteLines
	}
	if o.MinPairMatches == 0 {
		o.MinPairMatches = DefaultCompletePairMatches
	}
}

// Validate reports options Complete cannot use.
func (o CompleteOptions) Validate() error {
	switch {
	case o.Threshold < 0 || math.IsNaN(o.Threshold) || math.IsInf(o.Threshold, 0):
		return fmt.Errorf("tracks: completion threshold %v: want a finite number ≥ 0", o.Threshold)
	case o.MinAngle < 0 || o.MinAngle >= 90 || math.IsNaN(o.MinAngle):
		return fmt.Errorf("tracks: completion angle %v: want degrees in [0, 90)", o.MinAngle)
	case o.MinLines < 0 || o.MinLines == 1:
		return fmt.Errorf("tracks: completion lines %d: want 0 (default) or at least 2", o.MinLines)
	case o.MinPairMatches < 0:
		return fmt.Errorf("tracks: completion pair matches %d: want ≥ 0", o.MinPairMatches)
	case o.MaxDistance < 0 || math.IsNaN(o.MaxDistance):
		return fmt.Errorf("tracks: completion descriptor distance %v: want ≥ 0", o.MaxDistance)
	}
	return nil
}

// Complete extends the tracks by epipolar transfer through the verified
// pairs: a keypoint in no track of two or more that lies where the
// epipolar lines of two of a track's observations cross, with a
// descriptor close to the track's, joins it. It returns the new tracks
// and the number of observations added. Each keypoint joins one track,
// and never a track that has its view, so the tracks stay cycle
// consistent; tracks are served in order, so an earlier track takes a
// contested keypoint. It needs verified pairs: without them, or with Off,
// t is returned as it is.
func Complete(ctx context.Context, v *Views, t Tracks, o CompleteOptions) (Tracks, int, error) {
	if o.Off || t.Pairs == nil {
		return t, 0, nil
	}
	if err := o.Validate(); err != nil {
		return t, 0, err
	}
	o.ApplyDefaults()
	c := newCompletion(v, t, o)
	props, err := c.propose(ctx)
	if err != nil {
		return t, 0, err
	}
	dist, err := c.distances(ctx, props)
	if err != nil {
		return t, 0, err
	}
	item, added := c.accept(t.Item, props, dist)
	t.Item = item
	return t, added, nil
}
