package pipeline

import (
	"time"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/clear"
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

// Result is the output of every stage. Each field is written once, by
// its stage; a later stage's output is a new value, so earlier ones stay
// as their stage left them (Clear.Item is CLEAR's own assignment, Item
// the final one).
type Result struct {
	Images  []Image
	Skipped []Skipped
	// Sets are the features of each image (SIFT, as extracted; Run stores
	// the descriptors as bytes, Set.Desc8, a quarter of the memory).
	Sets []*features.Set
	// CacheHits counts images whose features came from the cache.
	CacheHits int
	// CacheError, when not nil, is why the feature cache was turned off
	// part-way (the run went on without it).
	CacheError error
	// DescriptorLoads counts the times an image's descriptors were read
	// back from the feature cache (CacheOptions.DescriptorMemory).
	DescriptorLoads int64
	// PairCacheHits counts the pairs whose matches and whose verification
	// came from the pair cache; PairCacheError, when not nil, is why it
	// stopped storing part-way (the run went on without it).
	PairCacheHits  [2]int
	PairCacheError error
	// Matches are the ratio-test matches of every pair matched, sorted
	// by pair.
	Matches []pairwise.Pair
	// PairMode is how the pairs were chosen (auto resolved: exhaustive,
	// sequential, retrieval, or "given" for PairOptions.List),
	// PairSources which source proposed each pair of Matches first, and
	// PairsConsidered how many pairs each source proposed in all.
	PairMode        string
	PairSources     []string
	PairsConsidered map[string]int
	// Verified holds the verification of every pair, in Matches' order
	// (nil when verification is off), with the models the track stages
	// left (the weak-pair filter refits some).
	Verified []pairwise.Verified
	// PixelThreshold is the largest model error of a verified match, in
	// pixels of the detection resolution (see Threshold).
	PixelThreshold float64
	// PixelScale is, per image, the full-resolution pixels per pixel of
	// the image its features were detected in (1 unless downscaled).
	PixelScale []float64
	// Problem is CLEAR's input: the verified matches (or the ratio
	// matches without verification), observations numbered image by image.
	Problem *clear.Problem
	// Clear is CLEAR's output.
	Clear *clear.Result
	// Item is the track of every observation after the track stages
	// (Clear.Item without Foreign when none changed it); Completed counts
	// the observations completion added.
	Item      []int
	Completed int
	// Foreign counts the observations CLEAR assigned to an item of
	// another component of the association graph, which the solve took
	// out of their tracks (dropForeign).
	Foreign int
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
	if r.PixelScale == nil {
		return r.PixelThreshold
	}
	return r.PixelThreshold * max(r.PixelScale[i], r.PixelScale[j])
}

// Offsets returns the global index of each image's first observation,
// with the total last.
func (r *Result) Offsets() []int { return features.Offsets(r.Sets) }

// Pairs returns the pairs that went into CLEAR (verified ones only, when
// verification is on).
func (r *Result) Pairs() []pairwise.Pair {
	if r.Verified == nil {
		return r.Matches
	}
	var out []pairwise.Pair
	for _, v := range r.Verified {
		if v.Model != pairwise.NoModel {
			out = append(out, pairwise.Pair{I: v.I, J: v.J, Matches: v.Matches})
		}
	}
	return out
}
