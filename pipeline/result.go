package pipeline

import (
	"time"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/tracks"
)

// Timing holds the wall time of each stage.
type Timing struct {
	// Select is pair selection (the retrieval index; 0 otherwise); Weak
	// the weak-pair filter; Calibrate the self-calibration; Reproj the
	// reprojection filter.
	Extract, Select, Match, Verify, Solve, Complete, Refine, Weak, Calibrate, Reproj time.Duration
}

// WeakStats and ReprojStats are the track stages' (package tracks).
type (
	WeakStats   = tracks.WeakStats
	ReprojStats = tracks.ReprojStats
)

// Result is the chain's outcome: the Scene, the pairs stage's Matched,
// the solve's Solution (each as its stage left it, read-only) and what
// the track stages made of them. Their fields read through Result (r.Sets,
// r.Matches, r.Clear); where a track stage made a new value, Result's own
// field is it: Item (Solution.Item before the track stages) and Verified
// (Matched.Verified before the weak-pair filter refitted some models).
type Result struct {
	*Scene
	*Matched
	*Solution
	// Skipped are the images extraction could not read (Run).
	Skipped []Skipped
	// CacheHits counts images whose features came from the cache.
	CacheHits int
	// CacheError, when not nil, is why the feature cache was turned off
	// part-way (the run went on without it).
	CacheError error
	// DescriptorLoads counts the times an image's descriptors were read
	// back from the feature cache (CacheOptions.DescriptorMemory).
	DescriptorLoads int64
	// Item is the track of every observation after the track stages;
	// Completed counts the observations completion added.
	Item      []int
	Completed int
	// Verified is Matched.Verified with the models the track stages left
	// (the weak-pair filter refits some).
	Verified []pairwise.Verified
	// Refined, when refinement ran, holds each image's features with the
	// tracks' keypoints moved (descriptors shared with Sets); Refinement
	// counts what was moved, and the observations completion added that
	// refinement took out again (their patch did not align with the
	// track's reference; Completed still counts them). Output returns it.
	Refined    []*features.Set
	Refinement tracks.RefineStats
	// Weak counts what the weak-pair filter did.
	Weak WeakStats
	// SelfCalibration is what the self-calibration found (nil when it did
	// not run). Its Camera is in full-resolution pixels, pixel centres at
	// integer coordinates.
	SelfCalibration *calib.Result
	// Reproj counts what the reprojection filter did, MinTrack what
	// -min-track took out.
	Reproj   ReprojStats
	MinTrack tracks.MinTrackStats
	Timing   Timing
}

// Output returns the features the tracks are written with: Refined when
// refinement ran, otherwise Sets.
func (r *Result) Output() []*features.Set {
	if r.Refined != nil {
		return r.Refined
	}
	return r.Sets
}

// Threshold is the largest model error of a verified match between
// images i and j, in full-resolution pixels.
func (r *Result) Threshold(i, j int) float64 {
	return r.PixelThreshold * max(r.Scale[i], r.Scale[j])
}

// Pairs returns the pairs that went into CLEAR (verified ones only, when
// verification is on).
func (r *Result) Pairs() []pairwise.Pair { return clearPairs(r.Matches, r.Verified) }
