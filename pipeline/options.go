package pipeline

import (
	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/imagefile"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/tracks"
)

// Options configure the pipeline: each stage's options, and the Env they
// run in. Start from a preset — DefaultOptions (what `clearmatch match`
// runs with no flags), BenchmarkOptions or PaperOptions — and change what
// you need; the CLI's flags mirror the groups. Each stage is a value made
// of its groups: Features (extraction), PairStage (Pairs, Matching and
// Verification), Solve and Tracks.
type Options struct {
	Features     FeatureOptions
	Pairs        PairOptions
	Matching     MatchOptions
	Verification VerifyOptions
	Solve        SolveOptions
	// Tracks configure the stages after CLEAR (package tracks; its zero
	// value runs them all with their defaults).
	Tracks tracks.Options
	Env
}

// PairStage is the pairs stage of o: its pair selection, ratio matching
// and verification.
func (o Options) PairStage() PairStage {
	return PairStage{Pairs: o.Pairs, Matching: o.Matching, Verification: o.Verification}
}

// Validate reports options a stage cannot use, before any stage runs.
func (o Options) Validate() error {
	if err := o.Features.Validate(); err != nil {
		return err
	}
	if err := o.PairStage().validate(); err != nil {
		return err
	}
	return o.Tracks.Validate()
}

// FeatureOptions configure extraction (Run only).
type FeatureOptions struct {
	// Options are SIFT's and the image limits (package features).
	features.Options
	// Strict makes an unreadable image an error; by default it is
	// skipped and listed in Result.Skipped.
	Strict bool
}

// CacheOptions configure the caches (Env.Cache); results never depend on
// them.
type CacheOptions struct {
	// Features is the feature cache's folder; "" disables it.
	Features string
	// Pairs holds each pair's matches and verification, keyed by both
	// images' features and the options, so an interrupted or extended run
	// only does new work; "" disables it.
	Pairs string
	// DescriptorMemory bounds the bytes of descriptors kept in memory
	// when the feature cache is on: images used least recently are read
	// back from it (features.DescriptorCache). 0 means
	// DefaultDescriptorMemory; negative keeps every image's.
	DescriptorMemory int64
	// ImageMemory bounds the bytes of grey images extraction keeps, the
	// most recently decoded, for refinement to read instead of decoding
	// the files again. 0 means DefaultImageMemory; negative keeps none.
	ImageMemory int64
}

// MatchOptions configure the ratio test.
type MatchOptions struct {
	// Ratio is Lowe's ratio on distances; 0 means pairwise.DefaultRatio
	// (the paper's 1.5 on squared distances).
	Ratio float64
	// Mutual keeps only mutual nearest neighbours.
	Mutual bool
	// RootSIFT matches RootSIFT descriptors (Arandjelović and Zisserman,
	// 2012), computed from SIFT per pair, so the cache is shared.
	RootSIFT bool
	// Matcher finds nearest descriptors; nil means the BLAS matcher
	// (features.BLASMatcher, exactly pairwise.BruteForce's answer), or
	// pairwise.BruteForce itself in a build without cgo.
	Matcher pairwise.Matcher
}

// VerifyOptions configure geometric verification.
type VerifyOptions struct {
	// Off skips verification: CLEAR takes the ratio matches, and the
	// track stages, which need verified pairs, do nothing.
	Off bool
	// Options are the thresholds and guided matching (package pairwise).
	pairwise.VerifyOptions
	// Estimator fits two-view models; nil means OpenCV's MAGSAC++
	// (features.CVEstimator).
	Estimator pairwise.Estimator
}

// SolveOptions configure CLEAR.
type SolveOptions struct {
	clear.Options
	// Weighted gives associations the weight 1 − d1/d2 of their ratio
	// test (guided matches weigh 1); the default is binary, which the
	// verified pipeline needs (low weights inflate the universe estimate).
	Weighted bool
	// UnionFind builds tracks as SfM engines do instead of CLEAR: each
	// connected component of the matches is a track, which may hold two
	// keypoints of one image. It is there to compare the two.
	UnionFind bool
}

// DefaultDescriptorMemory is CacheOptions.DescriptorMemory's default: 512
// MiB holds the descriptors of 256 photos of 16384 features, more than a
// retrieval neighbourhood.
const DefaultDescriptorMemory = 512 << 20

// DefaultImageMemory is CacheOptions.ImageMemory's default: 64 MiB holds
// 42 photos of 1536 × 1024 pixels, so a small scene is decoded once.
const DefaultImageMemory = 64 << 20

// DefaultMaxFeatures caps the features per image, keeping those of
// strongest response: it bounds a pair's matching cost. Twice COLMAP's
// 8192, because capping 1536-pixel photos at 8192 cost camera accuracy
// (docs/decisions.md, "Features").
const DefaultMaxFeatures = 16384

// DefaultCompletionMinInlierRatio is PairOptions.CompletionMinInlierRatio's
// default: the 0.25 floor that verification applied to every pair before
// it followed COLMAP, kept for the pairs only transitivity proposed
// (docs/decisions.md, "Completion's inlier-ratio floor").
const DefaultCompletionMinInlierRatio = 0.25

// DefaultCompletionMinChains is PairOptions.CompletionMinChains' default:
// verification's fewest inliers. Pairs that completion verifies have
// several times more chains; most that fail have none (docs/decisions.md,
// "Completion's chain test").
const DefaultCompletionMinChains = 15

// DefaultCompletionRounds is PairOptions.Rounds' default. Completion
// stops sooner when a round proposes no pair; a scene whose photos all
// overlap needs several rounds, since each proposes at most K pairs an
// image (docs/decisions.md, "Completion's rounds").
const DefaultCompletionRounds = 5

// DefaultRetrievalK is retrieval's neighbours per image. Below 25 the
// strip benchmark's tracks got more accurate and its matching cheaper with
// every true pair kept; real scenes of up to 51 photos never reach
// retrieval (docs/decisions.md, "Pair selection").
const DefaultRetrievalK = 12

// AutoExhaustiveMax is the most images PairsAuto matches exhaustively
// (2K+1 when K is larger): up to it no pair is left to retrieval's choice.
const AutoExhaustiveMax = 51

// DefaultMaxDim is the largest image side features are detected at
// (larger images are downscaled, as COLMAP's max_image_size does).
const DefaultMaxDim = 3200

// DefaultOptions returns the verified pipeline, exactly what `clearmatch
// match` runs with no flags: SIFT at contrast 0.02 (COLMAP's density) on
// at most DefaultMaxFeatures per image, RootSIFT, pairs by PairsAuto,
// ratio 0.8, MAGSAC++ verification without guided matching (as COLMAP),
// CLEAR with components bounded by clear.DefaultMaxComponent, and every
// track stage (package tracks). Why each: docs/decisions.md.
func DefaultOptions() Options {
	o := Options{
		Features: FeatureOptions{Options: features.Options{ContrastThreshold: 0.02, EdgeThreshold: 10,
			MaxFeatures: DefaultMaxFeatures, MaxDim: DefaultMaxDim, MaxPixels: imagefile.DefaultMaxPixels}},
		Pairs: PairOptions{Mode: PairsAuto, K: DefaultRetrievalK, Overlap: 10, Rounds: DefaultCompletionRounds, CompletionMinInlierRatio: DefaultCompletionMinInlierRatio,
			CompletionMinChains: DefaultCompletionMinChains},
		Matching: MatchOptions{Ratio: 0.8, RootSIFT: true},
		Verification: VerifyOptions{VerifyOptions: pairwise.VerifyOptions{Threshold: pairwise.DefaultVerifyThreshold,
			MinInliers: 15, GuidedRatio: 0.8, NoGuided: true, PlanarKeepsF: true}},
		Solve: SolveOptions{Options: clear.Options{Threshold: clear.DefaultThreshold, MaxComponent: clear.DefaultMaxComponent}},
	}
	o.Tracks.ApplyDefaults()
	return o
}

// BenchmarkOptions are DefaultOptions for the matching benchmarks (eval,
// demo), which score the recall of correspondences on CLEAR's tracks:
// every pair, guided matching on (Graffiti's verified F1 0.861 with it,
// 0.626 without), H for planar pairs, and no track stage.
func BenchmarkOptions() Options {
	o := DefaultOptions()
	o.Verification.NoGuided, o.Verification.PlanarKeepsF = false, false
	o.Pairs = PairOptions{Mode: PairsExhaustive}
	o.Tracks = tracks.AllOff()
	return o
}

// PaperOptions returns the CLEAR paper's protocol: SIFT with OpenCV's
// defaults, every pair matched with vl_ubcmatch's ratio (1.5 on squared
// distances), no verification, exact CLEAR on every component.
func PaperOptions() Options {
	return Options{Verification: VerifyOptions{Off: true}, Tracks: tracks.AllOff()}
}
