package match

import (
	"cmp"
	"flag"
	"fmt"
	"strconv"

	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pipeline"
	"github.com/clearmatch/clearmatch/tracks"
)

// match's flags mirror pipeline.Options, one function per group; each
// flag's default is DefaultOptions' value, so the CLI and the library
// share one set of defaults. Values the flags give in the user's words
// (0 for off, MiB, names) are turned into options by checkMatchFlags.

// onFlag is a bool flag for an option that says Off: -flag=false sets it.
type onFlag struct{ off *bool }

func (f onFlag) String() string {
	if f.off == nil {
		return "false"
	}
	return strconv.FormatBool(!*f.off)
}

func (f onFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err == nil {
		*f.off = !v
	}
	return err
}

func (f onFlag) IsBoolFlag() bool { return true }

// onVar defines a bool flag that is true when *off is false.
func onVar(fs *flag.FlagSet, off *bool, name, usage string) {
	fs.Var(onFlag{off}, name, usage)
}

func addFeatureFlags(fs *flag.FlagSet, o *pipeline.FeatureOptions) {
	fs.IntVar(&o.MaxFeatures, "max-features", o.MaxFeatures, "keep the N SIFT features of strongest response per image (0: all)")
	fs.Float64Var(&o.ContrastThreshold, "contrast", o.ContrastThreshold, "SIFT contrast threshold (OpenCV's default is 0.04)")
	fs.Float64Var(&o.EdgeThreshold, "edge", o.EdgeThreshold, "SIFT edge threshold")
	fs.IntVar(&o.MaxDim, "max-dim", o.MaxDim, "downscale images whose larger side exceeds N pixels before detection, as COLMAP's max_image_size does (0: never)")
	fs.Int64Var(&o.MaxPixels, "max-pixels", o.MaxPixels, "refuse images of more pixels than this (width × height, read from the header before decoding)")
	fs.BoolVar(&o.Strict, "strict", o.Strict, "an unreadable image is an error instead of a warning")
}

// cacheFlags are the cache group in the user's words: one folder (pairs
// in its pairs/) and MiB.
type cacheFlags struct {
	dir     string
	descMiB int64
}

func addCacheFlags(fs *flag.FlagSet, c *cacheFlags) {
	c.dir = cmdline.DefaultCacheDir()
	c.descMiB = pipeline.DefaultDescriptorMemory >> 20
	fs.StringVar(&c.dir, "cache", c.dir, "cache directory: features, and each pair's matches and verification in pairs/, so an interrupted or extended run only does new work (\"\" disables it)")
	fs.Int64Var(&c.descMiB, "descriptor-memory", c.descMiB, "MiB of descriptors kept in memory; the images used least recently are read back from -cache when needed (0: keep every image's)")
}

func addPairFlags(fs *flag.FlagSet, o *pipeline.PairOptions, pairsArg *string) {
	*pairsArg = o.Mode
	fs.StringVar(pairsArg, "pairs", *pairsArg, fmt.Sprintf("pairs to match: auto (exhaustive up to %d images, or 2k+1 when more; retrieval above, plus sequential for numbered names), exhaustive, sequential, retrieval, or a file listing \"name_a name_b\" per line (write ./auto for a file of that name)", pipeline.AutoExhaustiveMax))
	fs.IntVar(&o.K, "retrieval-k", o.K, "retrieval: match each image with its k most similar images")
	fs.IntVar(&o.Overlap, "sequential-overlap", o.Overlap, "sequential: match each image with the next n (and quadratically farther)")
	fs.IntVar(&o.Rounds, "completion-rounds", o.Rounds, "retrieval: rounds of transitive completion (A-B and B-C verified: try A-C), at most: it stops when a round proposes no pair (0: none)")
	fs.Float64Var(&o.CompletionMinInlierRatio, "completion-min-inlier-ratio", o.CompletionMinInlierRatio, "retrieval: reject a pair completion proposed whose inliers are fewer than this fraction of its ratio matches (0: only -min-inlier-ratio)")
	fs.IntVar(&o.CompletionMinChains, "completion-min-chains", o.CompletionMinChains, "retrieval: match a pair completion proposed only when verified matches chain at least this many of its features through a third image (0: match every one)")
	fs.IntVar(&o.Window, "window", o.Window, "match only images at most this far apart in order (video); 0: all pairs")
}

func addMatchingFlags(fs *flag.FlagSet, o *pipeline.MatchOptions) {
	fs.Float64Var(&o.Ratio, "ratio", o.Ratio, "Lowe's ratio on distances (the paper's 1.5 on squared distances is 0.8165)")
	fs.BoolVar(&o.Mutual, "mutual", o.Mutual, "keep only mutual nearest neighbours (cross-check)")
	onVar(fs, &o.NoRootSIFT, "rootsift", "match RootSIFT descriptors")
}

// verifyFlags are the verification flags given as words: intrinsics, a
// string parsed by checkMatchFlags.
type verifyFlags struct {
	intrinsics string
}

func addVerifyFlags(fs *flag.FlagSet, o *pipeline.VerifyOptions, v *verifyFlags) {
	onVar(fs, &o.Off, "verify", "verify pairs geometrically (and add guided matches with -guided)")
	fs.Float64Var(&o.Threshold, "verify-threshold", o.Threshold, "largest model error of an inlier, pixels at detection resolution")
	fs.IntVar(&o.MinInliers, "min-inliers", o.MinInliers, "fewest inliers of a verified pair (lowered for images with few features)")
	fs.Float64Var(&o.MinInlierRatio, "min-inlier-ratio", o.MinInlierRatio, "reject a pair whose inliers are fewer than this fraction of its ratio matches (0: none, as COLMAP)")
	fs.BoolVar(&o.Guided, "guided", o.Guided, "add guided matches to verified pairs (features within -guided-threshold of the model; off by default, as in COLMAP: it costs SfM accuracy)")
	fs.Float64Var(&o.GuidedThreshold, "guided-threshold", o.GuidedThreshold, "largest model error of a guided match, pixels at detection resolution (0: -verify-threshold)")
	fs.Float64Var(&o.GuidedRatio, "guided-ratio", o.GuidedRatio, "ratio test among a guided match's candidates in the epipolar band")
	fs.StringVar(&v.intrinsics, "intrinsics", "", "the camera of every image, as fx,fy,cx,cy or a file holding them or a 3×3 K (K.txt), in full-resolution pixels with the first pixel's centre at (0,0), OpenCV's convention (a K in COLMAP's, first centre at (0.5,0.5), has cx and cy 0.5 more: subtract it; the export adds it back); pairs are then verified with essential matrices")
}

// solveFlags are CLEAR's flags as solve takes them.
type solveFlags struct {
	cmdline.ClearFlags
}

func addSolveFlags(fs *flag.FlagSet, o *pipeline.SolveOptions, s *solveFlags, mt *tracks.MinTrackOptions) {
	s.Threshold, s.Universe, s.MaxComponent, s.Assignment, s.Eigen = o.Threshold, o.UniverseSize, o.MaxComponent, "greedy", "auto"
	fs.Float64Var(&s.Threshold, "threshold", s.Threshold, "CLEAR eigenvalue threshold")
	fs.IntVar(&s.Universe, "universe", s.Universe, "known universe size (0: estimate)")
	fs.StringVar(&s.Assignment, "assignment", s.Assignment, "CLEAR assignment: greedy or hungarian")
	fs.IntVar(&s.MaxComponent, "max-component", s.MaxComponent, "split components larger than this before CLEAR (0: never, the paper's exact algorithm)")
	fs.BoolVar(&o.Weighted, "weighted", o.Weighted, "weight associations by 1 - d1/d2 (weighted CLEAR input)")
	fs.BoolVar(&o.UnionFind, "union-find", o.UnionFind, "instead of CLEAR, make each connected component of the matches a track, as SfM engines do (a track may then hold two keypoints of one image): to compare the two")
	fs.IntVar(&mt.Min, "min-track", cmp.Or(mt.Min, tracks.DefaultMinTrack), "drop tracks with fewer observations (the paper's post-processing)")
}

// trackFlags are the track stages' flags whose 0 means off.
type trackFlags struct {
	weakPairs     int
	rotationLoops float64
	reprojFilter  float64
}

func addTrackFlags(fs *flag.FlagSet, o *tracks.Options, t *trackFlags) {
	c := &o.Complete
	onVar(fs, &c.Off, "complete", "extend tracks by epipolar transfer (needs -verify; off by default without it): a keypoint where two of a track's epipolar lines cross, with a close descriptor, joins it")
	fs.Float64Var(&c.MinAngle, "complete-angle", c.MinAngle, "least angle (degrees) between the two epipolar lines of -complete")
	fs.Float64Var(&c.Threshold, "complete-threshold", c.Threshold, "largest distance (pixels) of a -complete candidate from each epipolar line")
	fs.Float64Var(&c.MaxDistance, "complete-distance", c.MaxDistance, "largest SIFT descriptor distance of a -complete candidate from the track (descriptor norm 512)")
	fs.IntVar(&c.MinPairMatches, "complete-pair-matches", c.MinPairMatches, "fewest verified matches of a pair whose epipolar lines -complete uses")
	fs.IntVar(&c.MinLines, "complete-lines", c.MinLines, "fewest epipolar lines (track views verified with the candidate's) for -complete")
	onVar(fs, &o.Refine.Off, "refine", "move each track's keypoints onto its reference observation's scene point by aligning image patches (reads every image again)")
	t.weakPairs, t.rotationLoops, t.reprojFilter = o.Weak.Matches, o.Weak.Loops.Degrees, o.Reproj.Threshold
	fs.IntVar(&t.weakPairs, "weak-pairs", t.weakPairs, "weak-pair filter (0: off): refit the E or F of each verified pair exported with fewer matches than this, and take an observation out of its track when it is -weak-threshold off two such pairs' refitted models with the rest of the track")
	fs.Float64Var(&o.Weak.Threshold, "weak-threshold", o.Weak.Threshold, "Sampson distance (pixels, detection resolution) of -weak-pairs")
	fs.Float64Var(&t.rotationLoops, "rotation-loops", t.rotationLoops, "with -intrinsics: degrees within which an essential pair's rotation must close some triangle of essential pairs; a pair none confirms gets the rotation its triangles give and its baseline refitted (0: off)")
	onVar(fs, &o.Calibrate.Off, "self-calibrate", "without -intrinsics: estimate the camera the images share (principal point, focal length, radial distortion) by bundle adjustment over the tracks and start the COLMAP export's camera there; the principal point stays at the image centre unless the tracks call for another")
	fs.Float64Var(&t.reprojFilter, "reproj-filter", t.reprojFilter, "reconstruct the images from the tracks (with -intrinsics, or the -self-calibrate camera) and take out of its track every observation more than this many pixels (detection resolution) from its track's point (0: off)")
	onVar(fs, &o.Reproj.NoExtend, "reproj-extend", "with -reproj-filter, add to each track the keypoint of each image it misses that lies within the filter's cut of the track's point and has a close descriptor")
}

// exportFlags are the export group.
type exportFlags struct {
	format, cameraModel string
	singleCamera        bool
}

func addExportFlags(fs *flag.FlagSet, e *exportFlags) {
	e.cameraModel, e.singleCamera = "SIMPLE_RADIAL", true
	fs.StringVar(&e.format, "export", "", "also write the input of an SfM engine: colmap (colmap/database.db and text files)")
	fs.StringVar(&e.cameraModel, "camera-model", e.cameraModel, "COLMAP camera model of the export: "+export.ColmapModels+"; the one-focal models take (fx+fy)/2 of -intrinsics, PINHOLE keeps fx and fy (for colmap mapper with the focal length fixed)")
	fs.BoolVar(&e.singleCamera, "single-camera", e.singleCamera, "images of one size and focal prior share one COLMAP camera (false: one camera per image)")
}
