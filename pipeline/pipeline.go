// Package pipeline runs clearmatch's stages, from images (or feature sets)
// to cycle-consistent tracks:
//
//	images ──extract──▶ SIFT keypoints + descriptors (features, OpenCV)
//	       ──match────▶ Lowe's ratio test on every image pair (pairwise)
//	       ──verify───▶ two-view geometry (H, F or E) + guided matches
//	       ──solve────▶ CLEAR on the verified association graph (clear)
//
// Run takes image files, Match takes feature sets (a benchmark's selected
// features, say); both return a Result with every stage's output and
// timing. The package owns the concurrency (a bounded worker pool per
// stage, never changing the output), honours context cancellation inside
// every stage, reports progress through the Progress interface, and prints
// nothing. File formats are in package export.
//
// DefaultOptions is the verified pipeline (SIFT at contrast 0.02, at most
// 16384 features, RootSIFT, pairs chosen by PairOptions' auto mode, ratio
// 0.8, MAGSAC++ verification without guided matching, binary CLEAR);
// PaperOptions the CLEAR paper's protocol (SIFT, every pair, vl_ubcmatch's
// ratio, no verification). Without
// cgo the package builds and Match works on given feature sets with the
// pure-Go matcher (and an Estimator of the caller's, for verification);
// the image stages return features.ErrNoOpenCV.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/imagefile"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/refine"
	"github.com/clearmatch/clearmatch/retrieval"
)

// Stage names, as reported to Progress and in Timing.
const (
	StageExtract = "extract"
	StageMatch   = "match"
	StageVerify  = "verify"
	StageSolve   = "solve"
	// StageComplete counts the tracks track completion proposed
	// observations for, StageCompletePairs then the image pairs whose
	// descriptors it compared.
	StageComplete      = "complete"
	StageCompletePairs = "complete-pairs"
	// StageRefine counts the images read (twice each) to refine tracks.
	StageRefine = "refine"
)

// Progress receives the progress of long stages. Update is called with
// the stage's name and how many of its total units are done; calls are
// serialized, and done == total ends the stage.
type Progress interface {
	Update(stage string, done, total int)
}

// Options configure the pipeline. Use DefaultOptions or PaperOptions and
// change what you need; the zero value is PaperOptions without a cache.
type Options struct {
	// Features are the SIFT parameters (Run only).
	Features features.Options
	// CacheDir holds the feature cache (Run only); "" disables it.
	CacheDir string
	// DescriptorMemory bounds the bytes of descriptors Run keeps in
	// memory when the feature cache is on: images used least recently are
	// read back from the cache when needed (features.DescriptorCache), so
	// memory follows the pairs in work, not images × features. 0 means
	// DefaultDescriptorMemory; negative keeps every image's in memory.
	// Results do not depend on it.
	DescriptorMemory int64
	// PairCacheDir holds each pair's matches and verification, keyed by
	// both images' features and the options, so an interrupted or
	// extended run only does new work; "" disables it.
	PairCacheDir string
	// RootSIFT matches RootSIFT descriptors (Arandjelović and Zisserman,
	// 2012), computed from SIFT before matching, so the cache is shared.
	RootSIFT bool
	// Pairs chooses the image pairs to match (the zero value: every
	// pair). Match.Pairs, when set, overrides it; Match.Window limits
	// exhaustive matching.
	Pairs PairOptions
	// Match configures the ratio test (Workers, Progress and the pair list
	// are set by the pipeline).
	Match pairwise.Options
	// Verify turns on geometric verification and guided matching, with
	// the options in Verification.
	Verify       bool
	Verification pairwise.VerifyOptions
	// Camera, when known, holds the intrinsics of every image at full
	// resolution: verification then fits an essential matrix instead of F.
	Camera geom.Intrinsics
	// Weighted gives associations the weight 1 − d1/d2 of their ratio
	// test (guided matches weigh 1); the default is binary, which the
	// verified pipeline needs (low weights inflate the universe estimate).
	Weighted bool
	// Clear configures the solve.
	Clear clear.Options
	// Complete extends CLEAR's tracks by epipolar transfer through the
	// verified pairs (pairwise.CompleteTracks, with the options in
	// Completion): a keypoint in no track that lies where the epipolar
	// lines of two of a track's observations cross, with a descriptor
	// close to the track's, joins it. Needs Verify.
	Complete   bool
	Completion pairwise.CompleteOptions
	// Refine moves the observations of every track of 2+ views onto its
	// reference observation's scene point (package refine: each keypoint's
	// patch aligned to the reference's by ECC), with the options in
	// Refinement. It reads every image again, so it runs only when every
	// Image has a Path (Run, or Match given them; otherwise it is skipped
	// and Result.Refined stays nil); Result.Refined holds the moved
	// keypoints, Result.Sets stays as extracted.
	Refine     bool
	Refinement refine.Options
	// WeakPairs, when positive, turns on the weak-pair filter after
	// refinement: each verified pair (E or F) exported with fewer than
	// WeakPairs matches has its model refitted to them, and an observation
	// more than WeakThreshold pixels (detection resolution; 0 means
	// DefaultWeakThreshold) off the refitted models of two or more such
	// pairs with the rest of its track leaves the track
	// (Result.Weak). DefaultOptions sets DefaultWeakPairs; 0 turns it off.
	WeakPairs     int
	WeakThreshold float64
	// RotationLoops, when positive and the intrinsics are known, checks
	// each essential pair's rotation against its triangles of essential
	// pairs (degrees) and replaces the model of a pair that none of them
	// confirms (Result.Weak.Loops): see DefaultRotationLoops. 0 turns it
	// off.
	RotationLoops float64
	// SelfCalibrate, when the intrinsics are not known (Camera) and
	// Verify is on, estimates the camera the images share from the
	// tracks (package calib: a small structure from motion and bundle
	// adjustment) after the weak-pair filter: Result.SelfCalibration.
	// Its principal point is accepted only when the data call for it over
	// the image centre. Images of different sizes are not calibrated.
	SelfCalibrate bool
	// ReprojFilter, when positive and Verify is on, reconstructs the
	// images from the tracks after the self-calibration (with Camera when
	// known, else the self-calibration's reconstruction) and takes out of
	// its track every observation more than ReprojFilter pixels (detection
	// resolution) from its track's point (Result.Reproj). DefaultOptions
	// sets DefaultReprojFilter; 0 turns it off.
	ReprojFilter float64
	// ReprojExtend, with ReprojFilter, also adds to each track with a
	// point the keypoint of each placed view it misses that lies within
	// the filter's cut of the point's projection, in no track, its
	// descriptor within ExtendDistance of the track's (ReprojStats.Extended).
	ReprojExtend bool
	// Matcher finds nearest descriptors; nil means the BLAS matcher
	// (features.BLASMatcher: exactly pairwise.BruteForce's answer, about
	// 3x faster per core than OpenCV's brute-force matcher), or
	// pairwise.BruteForce itself in a build without cgo.
	Matcher pairwise.Matcher
	// Estimator fits two-view models; nil means OpenCV's MAGSAC++
	// (features.CVEstimator).
	Estimator pairwise.Estimator
	// Strict makes an unreadable image an error; by default it is skipped
	// and listed in Result.Skipped.
	Strict bool
	// Workers bounds every stage's worker pool; 0 means GOMAXPROCS.
	Workers int
	// Progress, if set, receives every stage's progress.
	Progress Progress
}

// DefaultOptions returns the verified pipeline: SIFT at contrast 0.02
// (COLMAP's feature density), RootSIFT, Lowe's ratio
// 0.8, MAGSAC++ verification with H/F model selection and no guided
// matching, binary CLEAR with components bounded by
// clear.DefaultMaxComponent: the SfM hand-off (see BenchmarkOptions for
// the matching benchmarks).
//
// Guided matching is off, as in COLMAP (SiftMatching.guided_matching 0):
// measured against ground-truth cameras it costs SfM accuracy. Its matches
// are about 95% right (Sampson distance within 2 px of the true geometry)
// where the verified inliers are 99.8%, and on planar, repetitive walls
// they chain tracks into components of thousands of observations. On
// fountain-p11 (11 photos, 1536 px) without it: camera positions 2.02 mm
// (calibrated) and 5.35 mm (uncalibrated) median against 2.04 and 6.72 mm
// with it, rotations 0.036° against 0.048° (calibrated), and the solve
// takes 0.1 s instead of 50 s. Nearly planar uncalibrated pairs keep F's
// inliers (PlanarKeepsF, COLMAP's rule): fountain-p11 uncalibrated 5.04 mm
// and 0.495° against 5.35 mm and 0.497° with H's.
//
// Track completion is on (Complete): CLEAR's tracks are mostly two-view
// (13,232 of 16,890 on every third herz-jesus-p25 photo), which COLMAP's
// mapper does not triangulate, and a view tied to the rest by few longer
// tracks is registered late and loosely. Over 14 calibrated and
// uncalibrated ground-truth scenes (docs/decisions.md) it took camera positions from
// 0.944 to 0.875 times COLMAP alone's (geometric mean of the medians) and
// rotations from 0.992 to 0.872; on every third herz-jesus-p25 photo,
// calibrated, from 13.6 mm to 4.8 mm (COLMAP alone 7.3 mm).
//
// Refinement is on (Refine): each track's keypoints are moved onto its
// reference observation's scene point by patch alignment. Over the 26
// calibrated and uncalibrated ground-truth rows (docs/decisions.md) it lowered the
// mapper's mean reprojection error on every one (fountain-p11 calibrated
// 0.175 → 0.089 px) and took camera positions from 0.964 to 0.911 times
// COLMAP alone's (geometric mean of the medians), rotations 0.912 to
// 0.918. Since it also takes out completion's additions whose patches do
// not align (Result.Unconfirmed), the same rows give 0.925 and 0.902,
// with tracks more often within 2 px of the true point (herz-jesus-p25
// calibrated: 0.932 to 0.960).
//
// The weak-pair filter is on (WeakPairs, DefaultWeakThreshold): a camera
// tied to the rest by few matches is pulled most by the few wrong ones
// among them. Over 12 calibrated rows, with the mapper started from each
// of six image pairs (docs/decisions.md), camera positions 0.958 and rotations 0.956
// times those without it; one mapper run each, over the 13 calibrated
// rows, 0.972 and 0.965; over the 13 uncalibrated, 0.998 and 1.000.
//
// With intrinsics the rotation-loop check is on (RotationLoops,
// DefaultRotationLoops): an essential pair whose rotation no triangle
// confirms gets the triangles' rotation and a refitted baseline, so the
// wrong matches its turned E took in are not exported. On herz-jesus 8–15
// at 768 px one such pair of 24 matches (2.8° off) held four matches
// 4–15 px off the true geometry, and the mapper gave 24.7–26.4 mm from
// each of five starts; with the check 8.0–8.4 mm (COLMAP alone 12.6–13.6).
// On the 13 calibrated rows at 1536 px it is neutral: one mapper run each
// 1.002× and 1.011× the camera position and rotation errors without it,
// bundle adjustment from the true cameras 0.998× and 1.019×.
func DefaultOptions() Options {
	return Options{
		// Contrast 0.02 finds about as many features as COLMAP's SIFT
		// (peak threshold 0.02/3) where OpenCV's 0.04 finds half; on
		// sceaux-castle the denser set gave the mapper 1.9× the
		// observations and better camera positions (docs/decisions.md).
		Features:      features.Options{ContrastThreshold: 0.02, MaxFeatures: DefaultMaxFeatures},
		RootSIFT:      true,
		Pairs:         PairOptions{Mode: PairsAuto, Rounds: 2},
		Match:         pairwise.Options{Ratio: 0.8},
		Verify:        true,
		Verification:  pairwise.VerifyOptions{NoGuided: true, PlanarKeepsF: true},
		Clear:         clear.Options{MaxComponent: clear.DefaultMaxComponent},
		Complete:      true,
		Refine:        true,
		WeakPairs:     DefaultWeakPairs,
		RotationLoops: DefaultRotationLoops,
		SelfCalibrate: true,
		ReprojFilter:  DefaultReprojFilter,
		ReprojExtend:  true,
	}
}

// DefaultDescriptorMemory is Options.DescriptorMemory's default: 512 MiB
// holds the descriptors of 256 photos of 16384 features (128 bytes each),
// more than a retrieval neighbourhood; a small folder's are all in memory
// and never read back.
const DefaultDescriptorMemory = 512 << 20

// DefaultMaxFeatures caps the features per image, keeping those of
// strongest response: it bounds a pair's matching cost (quadratic in the
// features) on large photos. It is twice COLMAP's 8192 because at
// contrast 0.02 a 1536-pixel photo already has 12-16k features, and
// capping those at 8192 cost camera accuracy (docs/decisions.md: herz-jesus-p25
// calibrated 5.73 mm against 5.39 mm uncapped); 16384 leaves such photos
// nearly untouched and caps 3200-pixel ones.
const DefaultMaxFeatures = 16384

// BenchmarkOptions are DefaultOptions with guided matching on: the
// verified protocol of the matching benchmarks (eval, demo), which score
// the recall of correspondences. Guided matching finds the true matches
// the ratio test missed: Graffiti's verified CLEAR F1 is 0.861 with it and
// 0.626 without, Hotel's 0.953 and 0.860.
func BenchmarkOptions() Options {
	o := DefaultOptions()
	o.Verification.NoGuided, o.Verification.PlanarKeepsF = false, false
	o.Pairs = PairOptions{Mode: PairsExhaustive} // the benchmarks match every pair
	o.Complete = false                           // the benchmarks score CLEAR's tracks
	o.Refine = false                             // and their keypoints as given
	o.WeakPairs = 0                              // and every track CLEAR made
	o.RotationLoops = 0
	o.SelfCalibrate = false
	o.ReprojFilter = 0
	return o
}

// PaperOptions returns the CLEAR paper's protocol: SIFT, every pair
// matched with vl_ubcmatch's ratio (1.5 on squared distances), no
// verification, exact CLEAR on every component.
func PaperOptions() Options { return Options{} }

// Image is one input image that was used.
type Image struct {
	Name string // unique name (the file's base name)
	Path string // the file ("" for feature sets given to Match)
}

// Skipped is an input image that could not be used.
type Skipped struct {
	Name string
	Err  error
}

// Message says why the image was skipped, naming it once: decoding errors
// name the file already.
func (s Skipped) Message() string {
	if msg := s.Err.Error(); strings.HasPrefix(msg, s.Name+":") {
		return msg
	}
	return s.Name + ": " + s.Err.Error()
}

// Timing holds the wall time of each stage.
type Timing struct {
	// Select is pair selection (the retrieval index; 0 otherwise); Weak
	// the weak-pair filter (Options.WeakPairs); Calibrate the
	// self-calibration (Options.SelfCalibrate); Reproj the reprojection
	// filter (Options.ReprojFilter).
	Extract, Select, Match, Verify, Solve, Complete, Refine, Weak, Calibrate, Reproj time.Duration
}

// Result is the output of every stage.
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
	// back from the feature cache (Options.DescriptorMemory).
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
	// sequential, retrieval, or "given" for Match.Pairs), PairSources
	// which source proposed each pair of Matches first, and
	// PairsConsidered how many pairs each source proposed in all.
	PairMode        string
	PairSources     []string
	PairsConsidered map[string]int
	// Verified holds the verification of every pair, in Matches' order (nil when
	// verification is off): model, matrix, counts and verified matches.
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
	// Item is the track of every observation: Clear.Item, extended by
	// track completion when Options.Complete (Completed observations
	// added), otherwise Clear.Item itself.
	Item      []int
	Completed int
	// Unconfirmed counts the observations completion added that
	// refinement took out again (Options.Refine): their patch did not
	// align with the track's reference (refine.ErrDiverged, ErrLow or
	// ErrFar), so the keypoint is not the track's scene point. Item no
	// longer holds them; Completed still counts them.
	Unconfirmed int
	// Refined, when Options.Refine, holds each image's features with the
	// keypoints of Item's tracks moved by refinement (descriptors shared
	// with Sets); Refinement counts what was moved. Output returns it.
	Refined    []*features.Set
	Refinement refine.Stats
	// Weak counts what the weak-pair filter did (Options.WeakPairs).
	Weak WeakStats
	// SelfCalibration is what Options.SelfCalibrate found (nil when it did
	// not run). Its Camera is in full-resolution pixels, pixel centres at
	// integer coordinates.
	SelfCalibration *calib.Result
	// Reproj counts what the reprojection filter did (Options.ReprojFilter).
	Reproj ReprojStats
	Timing Timing
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
func (r *Result) Offsets() []int {
	off := make([]int, len(r.Sets)+1)
	for i, s := range r.Sets {
		off[i+1] = off[i] + s.Len()
	}
	return off
}

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

// ErrTooFewImages reports fewer than two usable images.
var ErrTooFewImages = features.ErrTooFewImages

// Images expands the inputs (folders, whose image files are taken sorted
// by name, and single files) into paths and unique names (base names).
func Images(inputs []string) ([]Image, error) {
	seen := map[string]string{}
	var out []Image
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such folder or image", in)
		}
		if err != nil {
			return nil, err
		}
		ps := []string{in}
		if fi.IsDir() {
			if ps, err = features.ImageFiles(in); err != nil {
				return nil, err
			}
			if len(ps) == 0 {
				return nil, emptyFolder(in)
			}
		}
		for _, p := range ps {
			n := filepath.Base(p)
			if prev, ok := seen[n]; ok {
				return nil, fmt.Errorf("two images are named %s (%s and %s)", n, prev, p)
			}
			seen[n] = p
			out = append(out, Image{Name: n, Path: p})
		}
	}
	return out, nil
}

// emptyFolder says what to do about a folder that holds no image: name
// the subfolder that does (a COLMAP-style scene keeps them in images/).
func emptyFolder(dir string) error {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
			continue
		}
		if ps, err := features.ImageFiles(sub); err == nil && len(ps) > 0 {
			return fmt.Errorf("%s holds no images, but its subfolder %s holds %d: give that folder", dir, sub, len(ps))
		}
	}
	return fmt.Errorf("%s holds no images (clearmatch reads the %s files directly inside a folder)", dir, features.ImageExtensions())
}

// Run extracts the features of the images and runs Match on them.
// Unreadable images are skipped (listed in Result.Skipped) unless
// opts.Strict; fewer than two usable images is an error.
func Run(ctx context.Context, images []Image, opts Options) (*Result, error) {
	if err := opts.Features.Validate(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	paths := make([]string, len(images))
	names := make([]string, len(images))
	for i, im := range images {
		paths[i], names[i] = im.Path, im.Name
	}
	ex := &features.Extractor{Options: opts.Features, CacheDir: opts.CacheDir, Workers: opts.Workers, Compact: true}
	if opts.CacheDir != "" && opts.DescriptorMemory >= 0 {
		budget := opts.DescriptorMemory
		if budget == 0 {
			budget = DefaultDescriptorMemory
		}
		ex.Descriptors = features.NewDescriptorCache(budget)
	}
	if opts.Progress != nil {
		ex.Progress = func(done, total int, _ string) { opts.Progress.Update(StageExtract, done, total) }
	}
	sets, errs, st := ex.ExtractFiles(ctx, paths, names)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var kept []Image
	var keptSets []*features.Set
	var skipped []Skipped
	for i, err := range errs {
		if errors.Is(err, features.ErrNoOpenCV) {
			return nil, err
		}
		if err != nil {
			if opts.Strict {
				return nil, err
			}
			skipped = append(skipped, Skipped{Name: names[i], Err: err})
			continue
		}
		kept = append(kept, images[i])
		keptSets = append(keptSets, sets[i])
	}
	if len(kept) < 2 {
		why := ""
		for _, s := range skipped {
			why += "; " + s.Message()
		}
		return nil, fmt.Errorf("%w: %d of %d%s", ErrTooFewImages, len(kept), len(images), why)
	}
	extract := time.Since(t0)
	r, err := Match(ctx, kept, keptSets, opts)
	if err != nil {
		return nil, err
	}
	r.Skipped, r.CacheHits, r.CacheError, r.Timing.Extract = skipped, int(st.CacheHits), st.CacheError, extract
	if ex.Descriptors != nil {
		r.DescriptorLoads = ex.Descriptors.Loads()
	}
	return r, nil
}

// Match runs the stages after extraction on given feature sets (one per
// image, in order): matching, verification when opts.Verify, and CLEAR.
func Match(ctx context.Context, images []Image, sets []*features.Set, opts Options) (*Result, error) {
	if len(images) != len(sets) {
		panic("pipeline: Match with different numbers of images and sets")
	}
	if opts.Verify {
		if err := opts.Verification.Validate(); err != nil {
			return nil, err
		}
	}
	if err := opts.Pairs.validate(); err != nil {
		return nil, err
	}
	if opts.Refine {
		if err := opts.Refinement.Validate(); err != nil {
			return nil, err
		}
	}
	if opts.WeakPairs < 0 {
		return nil, fmt.Errorf("pipeline: WeakPairs %d is negative", opts.WeakPairs)
	}
	if t := opts.WeakThreshold; t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
		return nil, fmt.Errorf("pipeline: WeakThreshold %v is not a non-negative number", t)
	}
	if t := opts.RotationLoops; t < 0 || t >= 180 || math.IsNaN(t) {
		return nil, fmt.Errorf("pipeline: RotationLoops %v is not an angle in [0, 180) degrees", t)
	}
	r := &Result{Images: images, Sets: sets}
	counts := make([]int, len(sets))
	for i, s := range sets {
		counts[i] = s.Len()
	}
	// Descriptors as matched, made per use from the sets (which may hold
	// them as bytes): RootSIFT is computed per pair, not kept for every
	// image, so memory holds one compact copy of the folder's descriptors.
	// Released sets (features.DescriptorCache) read them back when needed.
	for i, s := range sets {
		if !s.Released() && len(s.Desc)+len(s.Desc8) != s.Len()*features.DescSize {
			return nil, fmt.Errorf("pipeline: image %d has %d descriptor values for %d features", i, len(s.Desc)+len(s.Desc8), s.Len())
		}
	}
	desc := func(i int) ([]float32, error) {
		s := sets[i]
		d, err := s.LoadFloats()
		if err != nil {
			return nil, err
		}
		if opts.RootSIFT {
			if s.Desc != nil { // d is the caller's Desc itself
				d = append([]float32(nil), d...)
			}
			features.RootSIFT(d)
		}
		return d, nil
	}
	var matcher pairwise.Matcher = features.BLASMatcher{}
	if opts.Matcher != nil {
		matcher = opts.Matcher
	} else if !features.OpenCV {
		matcher = pairwise.BruteForce{}
	}
	var views []pairwise.View
	var est pairwise.Estimator = features.CVEstimator{}
	if opts.Verify {
		views = make([]pairwise.View, len(sets))
		for i, s := range sets {
			views[i] = pairwise.View{Intrinsics: opts.Camera, PixelScale: pixelScale(s, opts.Features.MaxDim)}
			views[i].Points = make([]geom.Point, s.Len())
			for k, kp := range s.Keypoints {
				views[i].Points[k] = geom.Point{X: float64(kp.X), Y: float64(kp.Y)}
			}
		}
		if opts.Estimator != nil {
			est = opts.Estimator
		}
		r.PixelThreshold = opts.Verification.Threshold
		if r.PixelThreshold == 0 {
			r.PixelThreshold = pairwise.DefaultVerifyThreshold
		}
		r.PixelScale = make([]float64, len(views))
		for i := range views {
			r.PixelScale[i] = views[i].PixelScale
		}
	}

	// Pair selection, then matching and verification, in rounds when
	// retrieval's transitive completion proposes more pairs.
	t0 := time.Now()
	sel, err := selectPairs(ctx, r, desc, matcher, opts)
	if err != nil {
		return nil, err
	}
	r.Timing.Select = time.Since(t0)
	var pc *pairCache
	if opts.PairCacheDir != "" {
		if pc, err = newPairCache(opts.PairCacheDir, sets, r.PixelScale, matcher, est, opts); err != nil {
			return nil, err
		}
	}
	tried := map[[2]int]bool{}
	source := map[[2]int]string{}
	batch := sel.pairs
	for round := 0; len(batch) > 0; round++ {
		for _, p := range batch {
			tried[p] = true
		}
		for k, p := range batch {
			if _, ok := source[p]; !ok {
				source[p] = sel.source[k]
			}
		}
		t1 := time.Now()
		mo := opts.Match
		mo.Workers = opts.Workers
		mo.Progress = offsetProgress(opts.Progress, StageMatch, len(r.Matches))
		mo.Pairs, mo.Window = batch, 0
		var ms []pairwise.Pair
		if pc != nil {
			ms, mo.Pairs = pc.matches(batch)
			mo.OnPair = pc.storeMatches
		}
		if len(mo.Pairs) > 0 {
			done, err := pairwise.MatchAllFunc(ctx, len(sets), desc, features.DescSize, matcher, mo)
			if err != nil {
				return nil, err
			}
			ms = append(ms, done...)
		}
		r.Matches = append(r.Matches, ms...)
		r.Timing.Match += time.Since(t1)
		if !opts.Verify {
			break
		}
		t2 := time.Now()
		vo := opts.Verification
		vo.Workers = opts.Workers
		vo.Descriptors = desc // only guided matching reads them, per pair
		vo.Progress = offsetProgress(opts.Progress, StageVerify, len(r.Verified))
		var vs []pairwise.Verified
		todo := ms
		if pc != nil {
			vs, todo = pc.verified(ms)
			vo.OnPair = pc.storeVerified
		}
		if len(todo) > 0 {
			done, err := pairwise.Verify(ctx, views, features.DescSize, todo, est, vo)
			if err != nil {
				return nil, err
			}
			vs = append(vs, done...)
		}
		r.Verified = append(r.Verified, vs...)
		r.Timing.Verify += time.Since(t2)
		if sel.index == nil || round >= opts.Pairs.Rounds {
			break
		}
		var good [][2]int
		for _, v := range r.Verified {
			if v.Model != pairwise.NoModel {
				good = append(good, [2]int{v.I, v.J})
			}
		}
		batch = retrieval.Complete(len(sets), good, tried, opts.Pairs.k(), sel.index.Similarity, sel.keep(opts.Pairs.minRelative()))
		sel.source = make([]string, len(batch))
		for k := range sel.source {
			sel.source[k] = SourceCompletion
		}
		sel.considered[SourceCompletion] += len(batch)
	}
	order := func(i, j, k, l int) int {
		if i != k {
			return i - k
		}
		return j - l
	}
	slices.SortFunc(r.Matches, func(a, b pairwise.Pair) int { return order(a.I, a.J, b.I, b.J) })
	slices.SortFunc(r.Verified, func(a, b pairwise.Verified) int { return order(a.I, a.J, b.I, b.J) })
	r.PairMode = sel.mode
	r.PairSources = make([]string, len(r.Matches))
	for k, m := range r.Matches {
		r.PairSources[k] = source[[2]int{m.I, m.J}]
	}
	r.PairsConsidered = sel.considered
	if pc != nil {
		r.PairCacheHits = [2]int{pc.hitMatch, pc.hitVerif}
		r.PairCacheError = pc.err
	}

	if r.Problem, err = pairwise.Problem(counts, r.Pairs(), opts.Weighted); err != nil {
		return nil, err
	}
	t2 := time.Now()
	co := opts.Clear
	if sr, ok := opts.Progress.(StatusReporter); ok && co.Status == nil && co.Progress == nil {
		co.Status = func(st clear.SolveStatus) { sr.Status(StageSolve, st.Done, st.Total, st.String()) }
	} else if co.Progress == nil && opts.Progress != nil {
		co.Progress = stageProgress(opts.Progress, StageSolve)
	}
	if r.Clear, err = clear.SolveContext(ctx, r.Problem, &co); err != nil {
		return nil, err
	}
	r.Timing.Solve = time.Since(t2)
	r.Item = r.Clear.Item
	if opts.Complete && opts.Verify {
		t3 := time.Now()
		co := opts.Completion
		co.DescriptorRows = func(i int, rows []int) ([]float32, error) { return sets[i].LoadRows(rows) }
		co.Progress = stageProgress(opts.Progress, StageComplete)
		co.PairProgress = stageProgress(opts.Progress, StageCompletePairs)
		if r.Item, r.Completed, err = pairwise.CompleteTracks(ctx, views, features.DescSize, r.Verified, r.Clear.Item, r.Offsets(), co); err != nil {
			return nil, err
		}
		r.Timing.Complete = time.Since(t3)
	}
	if opts.Refine {
		t4 := time.Now()
		if err := refineTracks(ctx, r, opts); err != nil {
			return nil, err
		}
		r.Timing.Refine = time.Since(t4)
	}
	if opts.Verify {
		t5 := time.Now()
		if err := r.filterWeakPairs(ctx, opts); err != nil {
			return nil, err
		}
		r.Timing.Weak = time.Since(t5)
	}
	if opts.SelfCalibrate && opts.Verify && !opts.Camera.Known() {
		t6 := time.Now()
		if err := r.selfCalibrate(ctx); err != nil {
			return nil, err
		}
		r.Timing.Calibrate = time.Since(t6)
	}
	if opts.ReprojFilter > 0 && opts.Verify {
		t7 := time.Now()
		if err := r.filterReprojection(ctx, opts); err != nil {
			return nil, err
		}
		r.Timing.Reproj = time.Since(t7)
	}
	return r, nil
}

// refineTracks runs package refine on r.Item's tracks and fills r.Refined.
func refineTracks(ctx context.Context, r *Result, opts Options) error {
	for _, im := range r.Images {
		if im.Path == "" {
			return nil // feature sets without files (Match's callers): nothing to read
		}
	}
	off := r.Offsets()
	groups := r.tracks()
	tracks := make([][]refine.Observation, len(groups))
	for t, gr := range groups {
		tracks[t] = make([]refine.Observation, len(gr))
		for x, o := range gr {
			kp := r.Sets[o.img].Keypoints[o.kp]
			tracks[t][x] = refine.Observation{Image: o.img, Keypoint: o.kp,
				Frame:     refine.Frame{X: float64(kp.X), Y: float64(kp.Y), Scale: float64(kp.Size) / 2, Angle: float64(kp.Angle)},
				Tentative: r.Item[off[o.img]+o.kp] != r.Clear.Item[off[o.img]+o.kp]}
		}
	}
	load := func(i int) (*refine.Image, error) {
		img, err := imagefile.Open(r.Images[i].Path, opts.Features.MaxPixels)
		if err != nil {
			return nil, fmt.Errorf("refine: %w", err)
		}
		g := img.Gray()
		if g.Rect.Dx() != r.Sets[i].Width || g.Rect.Dy() != r.Sets[i].Height {
			return nil, fmt.Errorf("refine: %s is %d×%d, its features were found in %d×%d (did the file change?)",
				r.Images[i].Path, g.Rect.Dx(), g.Rect.Dy(), r.Sets[i].Width, r.Sets[i].Height)
		}
		return refine.NewImage(g), nil
	}
	st, err := refine.Tracks(ctx, len(r.Sets), tracks, load, opts.Refinement, opts.Workers, stageProgress(opts.Progress, StageRefine))
	if err != nil {
		return err
	}
	r.Refinement = st
	r.applyRefinement(tracks)
	return nil
}

// obsRef is one observation: keypoint kp of image img.
type obsRef struct{ img, kp int }

// tracks groups r.Item's observations by track, tracks in the order of
// their first observation, each in image order, observations outside any
// track (item −1) left out.
func (r *Result) tracks() [][]obsRef {
	off := r.Offsets()
	byItem := map[int]int{}
	var out [][]obsRef
	for i := range len(off) - 1 {
		for k := range off[i+1] - off[i] {
			g := r.Item[off[i]+k]
			if g < 0 {
				continue
			}
			t, ok := byItem[g]
			if !ok {
				t = len(out)
				byItem[g] = t
				out = append(out, nil)
			}
			out[t] = append(out[t], obsRef{i, k})
		}
	}
	return out
}

// applyRefinement fills r.Refined from refined tracks: each observation at
// its frame's position, except the tentative ones (added by completion)
// whose patch did not align with the reference (diverged, low correlation
// or too far: the keypoint is another point that looks alike; on
// herz-jesus-p25 half of them are more than 2 px off the true track).
// Those go back to CLEAR's item (Item must then be completion's own slice,
// not Clear.Item) and are counted in Unconfirmed.
func (r *Result) applyRefinement(tracks [][]refine.Observation) {
	off := r.Offsets()
	r.Refined = make([]*features.Set, len(r.Sets))
	for i, s := range r.Sets {
		c := *s
		c.Keypoints = slices.Clone(s.Keypoints)
		r.Refined[i] = &c
	}
	for _, t := range tracks {
		for _, ob := range t {
			if ob.Tentative && (ob.Err == refine.ErrDiverged || ob.Err == refine.ErrLow || ob.Err == refine.ErrFar) {
				g := off[ob.Image] + ob.Keypoint
				r.Item[g] = r.Clear.Item[g]
				r.Unconfirmed++
				continue
			}
			kp := &r.Refined[ob.Image].Keypoints[ob.Keypoint]
			kp.X, kp.Y = float32(ob.Frame.X), float32(ob.Frame.Y)
		}
	}
}

// pixelScale is how many full-resolution pixels one pixel of the
// detection image spans (features are detected downscaled to maxDim).
func pixelScale(s *features.Set, maxDim int) float64 {
	if m := max(s.Width, s.Height); maxDim > 0 && m > maxDim {
		return float64(m) / float64(maxDim)
	}
	return 1
}

// StatusReporter is a Progress that can also show what a stage is doing
// where a rate would mislead: the solve spends its time on its few large
// components, so it reports the component under way instead of an ETA.
type StatusReporter interface {
	Progress
	Status(stage string, done, total int, detail string)
}

// offsetProgress reports a stage that runs in rounds as one count: the
// pairs of earlier rounds are added to done and total.
func offsetProgress(p Progress, stage string, before int) func(done, total int) {
	if p == nil {
		return nil
	}
	return func(done, total int) { p.Update(stage, before+done, before+total) }
}

func stageProgress(p Progress, stage string) func(done, total int) {
	if p == nil {
		return nil
	}
	return func(done, total int) { p.Update(stage, done, total) }
}

// Names returns the images' names.
func Names(images []Image) []string {
	out := make([]string, len(images))
	for i, im := range images {
		out[i] = im.Name
	}
	return out
}

// VerificationCounts summarizes Verified: pairs tried, verified, and
// verified per model.
type VerificationCounts struct {
	Tried    int            `json:"pairs_tried"`
	Verified int            `json:"pairs_verified"`
	Models   map[string]int `json:"models"`
	// Planar counts the verified pairs a homography explains nearly as
	// well as F or E (COLMAP's PLANAR_OR_PANORAMIC), whatever their model.
	Planar  int `json:"planar"`
	Inliers int `json:"inliers"`
	Guided  int `json:"guided_matches"`
}

// CountVerification summarizes the verification of r.
func (r *Result) CountVerification() VerificationCounts {
	c := VerificationCounts{Tried: len(r.Verified), Models: map[string]int{}}
	for _, v := range r.Verified {
		if v.Model == pairwise.NoModel {
			continue
		}
		c.Verified++
		c.Models[v.Model.String()]++
		if v.Planar {
			c.Planar++
		}
		c.Inliers += v.Inliers
		c.Guided += v.Guided
	}
	return c
}
