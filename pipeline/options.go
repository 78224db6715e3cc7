package pipeline

import (
	"cmp"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/imagefile"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/tracks"
)

// Options configure the pipeline: each stage's options, and the Env they
// run in. The zero value is DefaultOptions, what `clearmatch match` runs
// with no flags: throughout the options a zero field means its default,
// and "none" is a negative number or a field named Off or No…
// (docs/design.md, "One rule for zero"). Presets expand into the same
// fields: BenchmarkOptions and PaperOptions. The CLI's flags mirror the
// groups.
// Each stage is a value made of its groups: Features (extraction),
// PairStage (Pairs, Matching and Verification), Solve and Tracks.
type Options struct {
	Features     FeatureOptions
	Pairs        PairOptions
	Matching     MatchOptions
	Verification VerifyOptions
	Solve        SolveOptions
	// Tracks configure the stages after CLEAR (package tracks).
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

// FeatureOptions configure extraction (Run only); a zero field means its
// default.
type FeatureOptions struct {
	// MaxFeatures keeps each image's MaxFeatures features of strongest
	// response (0: DefaultMaxFeatures; negative: all).
	MaxFeatures int
	// ContrastThreshold filters weak features (0:
	// DefaultContrastThreshold; OpenCV's own default is 0.04).
	ContrastThreshold float64
	// EdgeThreshold filters edge-like features (0: OpenCV's 10).
	EdgeThreshold float64
	// MaxDim downscales images whose larger side exceeds it before
	// detection, as COLMAP's max_image_size does; keypoints are mapped back
	// to full resolution (0: DefaultMaxDim; negative: never).
	MaxDim int
	// MaxPixels caps an image's declared width × height, checked before
	// decoding (0: imagefile.DefaultMaxPixels; negative: none). It does not
	// change the features of an image it admits.
	MaxPixels int64
	// Strict makes an unreadable image an error; by default it is
	// skipped and listed in Result.Skipped.
	Strict bool
}

// Extraction is o as package features takes it, every default filled in.
func (o FeatureOptions) Extraction() features.Options {
	return features.Options{
		MaxFeatures:       orNone(o.MaxFeatures, DefaultMaxFeatures),
		ContrastThreshold: cmp.Or(o.ContrastThreshold, DefaultContrastThreshold),
		EdgeThreshold:     cmp.Or(o.EdgeThreshold, 10),
		MaxPixels:         cmp.Or(o.MaxPixels, imagefile.DefaultMaxPixels), // negative: none in both
		MaxDim:            orNone(o.MaxDim, DefaultMaxDim),
	}
}

// Validate reports options extraction cannot use.
func (o FeatureOptions) Validate() error { return o.Extraction().Validate() }

// orNone is v's value under the rule for zero: def when v is 0, 0 (the
// lower packages' "none") when v is negative.
func orNone[T int | int64 | float64](v, def T) T {
	switch {
	case v == 0:
		return def
	case v < 0:
		return 0
	}
	return v
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
	// Ratio is Lowe's ratio on distances (0: DefaultRatio; the paper's
	// 1.5 on squared distances is pairwise.DefaultRatio).
	Ratio float64
	// Mutual keeps only mutual nearest neighbours.
	Mutual bool
	// NoRootSIFT matches the SIFT descriptors as extracted. By default
	// they are matched as RootSIFT (Arandjelović and Zisserman, 2012),
	// computed from SIFT per pair, so the feature cache is shared.
	NoRootSIFT bool
	// Matcher finds nearest descriptors; nil means the BLAS matcher
	// (features.BLASMatcher, exactly pairwise.BruteForce's answer), or
	// pairwise.BruteForce itself in a build without cgo. It is the
	// extension point for another nearest-neighbour search.
	Matcher pairwise.Matcher
}

// ratio is Lowe's ratio o asks for.
func (o MatchOptions) ratio() float64 { return cmp.Or(o.Ratio, DefaultRatio) }

// VerifyOptions configure geometric verification.
type VerifyOptions struct {
	// Off skips verification: CLEAR takes the ratio matches, and the
	// track stages, which need verified pairs, do nothing.
	Off bool
	// Options are the thresholds and guided matching (package pairwise,
	// whose zero value is this pipeline's default).
	pairwise.VerifyOptions
	// Estimator fits two-view models; nil means OpenCV's MAGSAC++
	// (features.CVEstimator). It is the extension point for another
	// robust estimator.
	Estimator pairwise.Estimator
}

// SolveOptions configure CLEAR; a zero field means its default.
type SolveOptions struct {
	// Threshold on the eigenvalues of the normalized Laplacian for the
	// universe size estimate (0: clear.DefaultThreshold).
	Threshold float64
	// UniverseSize, when positive, is the known number of tracks' worth
	// of distinct points; 0 estimates it (the paper's eq. 8).
	UniverseSize int
	// Assignment is the per-view assignment (0: clear.Greedy).
	Assignment clear.Assignment
	// Eigensolver is the eigen-decomposition path (0: clear.EigenAuto).
	Eigensolver clear.Eigensolver
	// Seed seeds the iterative eigensolver's start blocks.
	Seed uint64
	// MaxComponent splits components of more observations before CLEAR
	// (0: clear.DefaultMaxComponent; negative: never, the paper's exact
	// algorithm).
	MaxComponent int
	// Weighted gives associations the weight 1 − d1/d2 of their ratio
	// test (guided matches weigh 1); the default is binary, which the
	// verified pipeline needs (low weights inflate the universe estimate).
	Weighted bool
	// UnionFind builds tracks as SfM engines do instead of CLEAR: each
	// connected component of the matches is a track, which may hold two
	// keypoints of one image. It is there to compare the two.
	UnionFind bool
}

// Clear is o as package clear takes it, every default filled in.
func (o SolveOptions) Clear() clear.Options {
	return clear.Options{Threshold: cmp.Or(o.Threshold, clear.DefaultThreshold), UniverseSize: o.UniverseSize, Assignment: o.Assignment,
		Eigensolver: o.Eigensolver, Seed: o.Seed, MaxComponent: orNone(o.MaxComponent, clear.DefaultMaxComponent)}
}

// DefaultDescriptorMemory is CacheOptions.DescriptorMemory's default: 512
// MiB holds the descriptors of 256 photos of 16384 features, more than a
// retrieval neighbourhood.
const DefaultDescriptorMemory = 512 << 20

// DefaultImageMemory is CacheOptions.ImageMemory's default: 64 MiB holds
// 42 photos of 1536 × 1024 pixels, so a small scene is decoded once.
const DefaultImageMemory = 64 << 20

// DefaultContrastThreshold is SIFT's contrast threshold: COLMAP's
// density of features, twice OpenCV's 0.04 (docs/decisions.md,
// "Features").
const DefaultContrastThreshold = 0.02

// DefaultRatio is Lowe's ratio of the ratio test (docs/decisions.md).
const DefaultRatio = 0.8

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
// match` runs with no flags, every default written out (the zero Options
// run the same): SIFT at contrast 0.02 (COLMAP's density) on at most
// DefaultMaxFeatures per image, RootSIFT, pairs by PairsAuto, ratio 0.8,
// MAGSAC++ verification without guided matching (as COLMAP), CLEAR with
// components bounded by clear.DefaultMaxComponent, and every track stage
// (package tracks). Why each: docs/decisions.md.
func DefaultOptions() Options {
	o := Options{
		Features: FeatureOptions{ContrastThreshold: DefaultContrastThreshold, EdgeThreshold: 10,
			MaxFeatures: DefaultMaxFeatures, MaxDim: DefaultMaxDim, MaxPixels: imagefile.DefaultMaxPixels},
		Pairs: PairOptions{Mode: PairsAuto, K: DefaultRetrievalK, MinRelative: DefaultMinRelative, Overlap: DefaultOverlap,
			Rounds: DefaultCompletionRounds, CompletionMinInlierRatio: DefaultCompletionMinInlierRatio,
			CompletionMinChains: DefaultCompletionMinChains},
		Matching: MatchOptions{Ratio: DefaultRatio},
		Verification: VerifyOptions{VerifyOptions: pairwise.VerifyOptions{Threshold: pairwise.DefaultVerifyThreshold,
			MinInliers: 15, HRatio: 0.8, GuidedRatio: 0.8}},
		Solve: SolveOptions{Threshold: clear.DefaultThreshold, MaxComponent: clear.DefaultMaxComponent},
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
	o.Verification.Guided, o.Verification.PlanarH = true, true
	o.Pairs.Mode = PairsExhaustive
	o.Tracks = tracks.AllOff()
	return o
}

// PaperOptions returns the CLEAR paper's protocol: SIFT with OpenCV's
// defaults (contrast 0.04, every feature, full resolution), every pair
// matched with vl_ubcmatch's ratio (1.5 on squared distances) on SIFT
// descriptors, no verification, exact CLEAR on every component.
func PaperOptions() Options {
	return Options{
		Features:     FeatureOptions{ContrastThreshold: 0.04, MaxFeatures: -1, MaxDim: -1},
		Pairs:        PairOptions{Mode: PairsExhaustive},
		Matching:     MatchOptions{Ratio: pairwise.DefaultRatio, NoRootSIFT: true},
		Verification: VerifyOptions{Off: true},
		Solve:        SolveOptions{MaxComponent: -1},
		Tracks:       tracks.AllOff(),
	}
}
