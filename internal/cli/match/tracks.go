package match

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/clearmatch/clearmatch/colmap"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

const tracksUsage = `tracks DATABASE -out DIR [flags]

Makes the tracks of a COLMAP database cycle-consistent: the database of
COLMAP 3.x or 4.x, or one hloc wrote, whatever found its keypoints and
matches. SfM engines chain a database's verified matches into tracks by
union-find, which lets a track hold two keypoints of one image; tracks
gives each keypoint at most one track and each track at most one
keypoint per image.

Each pair's verified matches (two_view_geometries; -matches raw: the
matches table) are verified again by clearmatch's own verification, which
gives every pair a model in one convention whatever wrote the database;
then CLEAR, and the track stages that need no descriptors: keypoints CLEAR
put in another group's track leave it, the weak-pair filter, the
self-calibration (without a known camera), the reprojection filter and
-min-track; with -images, each track's keypoints are refined on the photos.

Writes into DIR: tracks.json, matches.csv and report.json, as match does,
and colmap/database.db: a copy of DATABASE whose two_view_geometries hold
the consistent matches that fit each pair's model (a pair whose matches
changed gets the model they were verified with; a pair left with fewer
than -min-inliers is taken out), everything else as it was, so that colmap
mapper and global_mapper read it as they read DATABASE. DATABASE is only
read; DIR appears whole or not at all. report.json's "database" says
what was read and written, with the conflicts: pairs of keypoints of one
image in one union-find track of the input's matches and of the output's.`

// tracksOptions are the tracks command's flags.
type tracksOptions struct {
	out, table, images, intrinsics, progress string
	force, keepCamera                        bool
	pipe                                     pipeline.Options
	track                                    trackFlags
	// camera is the scene's: -intrinsics, or the database's.
	camera geom.Intrinsics
}

func (o *tracksOptions) addFlags(fs *cmdline.FlagSet) {
	p := &o.pipe
	*p = pipeline.DefaultOptions()
	// No descriptors are read: completion and the reprojection filter's
	// extension compare them.
	p.Tracks.Complete.Off, p.Tracks.Refine.Off, p.Tracks.Reproj.NoExtend = true, true, true
	fs.StringVar(&o.out, "out", "", "output folder (required)")
	fs.BoolVar(&o.force, "force", false, "replace a non-empty -out folder")
	fs.StringVar(&o.table, "matches", "verified", "the matches to start from: verified (two_view_geometries) or raw (the matches table)")
	fs.StringVar(&o.images, "images", "", "the photos' folder (names as in the database): refine each track's keypoints on them")
	fs.StringVar(&o.intrinsics, "intrinsics", "", "the camera of every image as match takes it (fx,fy,cx,cy, first pixel's centre at (0,0)), or none; by default the database's camera when every image shares one whose focal length is known (prior_focal_length)")
	fs.Float64Var(&p.Verification.Threshold, "verify-threshold", p.Verification.Threshold, "largest model error of a verified match, pixels")
	fs.IntVar(&p.Verification.MinInliers, "min-inliers", p.Verification.MinInliers, "fewest matches a verified pair keeps, in verification and in the output database")
	fs.BoolVar(&p.Solve.UnionFind, "union-find", false, "instead of CLEAR, make each connected component of the matches a track, as the mapper would (to compare the two)")
	fs.IntVar(&p.Tracks.MinTrack.Min, "min-track", p.Tracks.MinTrack.Min, "drop tracks with fewer observations")
	t := &o.track
	t.weakPairs, t.rotationLoops, t.reprojFilter = p.Tracks.Weak.Matches, p.Tracks.Weak.Loops.Degrees, p.Tracks.Reproj.Threshold
	fs.IntVar(&t.weakPairs, "weak-pairs", t.weakPairs, "weak-pair filter, as match's (0: off)")
	fs.Float64Var(&t.rotationLoops, "rotation-loops", t.rotationLoops, "with a known camera, the rotation-loop check, as match's (0: off)")
	onVar(fs.FlagSet, &p.Tracks.Calibrate.Off, "self-calibrate", "without a known camera, estimate the one the images share from the tracks, for the reprojection filter")
	fs.Float64Var(&t.reprojFilter, "reproj-filter", t.reprojFilter, "reprojection filter's cut, pixels, as match's (0: off)")
	fs.BoolVar(&o.keepCamera, "keep-camera", false, "leave the copy's cameras table as it was; by default, when every image shares one camera whose focal length the database does not know, the copy's camera starts at the one self-calibration found (as match's export does)")
	fs.IntVar(&p.Workers, "workers", p.Workers, "parallel workers (0: GOMAXPROCS)")
	fs.StringVar(&o.progress, "progress", "text", "progress on stderr: text or json")
}

// parse reads the arguments and checks them; it returns the database.
func (o *tracksOptions) parse(args []string, stdout io.Writer) (string, error) {
	fs := cmdline.NewFlags("tracks", tracksUsage, stdout)
	o.addFlags(fs)
	pos, err := cmdline.ParseInterleaved(fs, args)
	if err != nil {
		return "", err
	}
	p, t := &o.pipe, &o.track
	switch {
	case len(pos) != 1:
		return "", cmdline.Usagef("want one COLMAP database, got %d arguments (clearmatch tracks DATABASE -out DIR)", len(pos))
	case o.out == "":
		return "", cmdline.Usagef("-out: want an output folder")
	case o.table != "verified" && o.table != "raw":
		return "", cmdline.Usagef("-matches %q: want verified or raw", o.table)
	case !(p.Verification.Threshold > 0) || !cmdline.Finite(p.Verification.Threshold):
		return "", cmdline.Usagef("-verify-threshold %v: want a positive number of pixels", p.Verification.Threshold)
	case p.Verification.MinInliers < 1:
		return "", cmdline.Usagef("-min-inliers %d: want at least 1", p.Verification.MinInliers)
	case p.Tracks.MinTrack.Min < 2:
		return "", cmdline.Usagef("-min-track %d: want at least 2", p.Tracks.MinTrack.Min)
	case t.weakPairs < 0:
		return "", cmdline.Usagef("-weak-pairs %d: want 0 (off) or more", t.weakPairs)
	case !(t.reprojFilter >= 0) || !cmdline.Finite(t.reprojFilter):
		return "", cmdline.Usagef("-reproj-filter %v: want 0 (off) or a positive number of pixels", t.reprojFilter)
	case !(t.rotationLoops >= 0 && t.rotationLoops < 180):
		return "", cmdline.Usagef("-rotation-loops %v: want degrees in [0, 180) (0: off)", t.rotationLoops)
	case p.Workers < 0:
		return "", cmdline.Usagef("-workers %d: want 0 (all cores) or more", p.Workers)
	}
	p.Tracks.Weak.Off, p.Tracks.Weak.Matches = t.weakPairs == 0, t.weakPairs
	p.Tracks.Weak.Loops.Off, p.Tracks.Weak.Loops.Degrees = t.rotationLoops == 0, t.rotationLoops
	p.Tracks.Reproj.Off, p.Tracks.Reproj.Threshold = t.reprojFilter == 0, t.reprojFilter
	p.Tracks.Refine.Off = o.images == ""
	if o.intrinsics != "" && o.intrinsics != "none" {
		if o.camera, err = parseIntrinsics(o.intrinsics); err != nil {
			return "", err
		}
	}
	return pos[0], nil
}

// RunTracks is `clearmatch tracks DATABASE -out DIR`.
func RunTracks(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	start := time.Now()
	var o tracksOptions
	db, err := o.parse(args, stdout)
	if err != nil {
		return err
	}
	defer lowGC()()
	if err := cmdline.NeedOpenCV(); err != nil {
		return err
	}
	t0 := time.Now()
	scene, err := colmap.ReadScene(db, o.matchTable())
	if err != nil {
		return err
	}
	in, err := o.sceneInputs(db, scene)
	if err != nil {
		return err
	}
	w := &tracksWriter{db: db, scene: scene, o: &o, timing: stepTimes{}}
	w.readInput(keypointCounts(in.sets))
	// The pipeline's sets and pairs hold what is needed from here on:
	// memory follows one copy of the keypoints and matches.
	scene.Keypoints, scene.Pairs = nil, nil
	read := time.Since(t0)
	stage, pr, err := beginRun(o.out, o.force, o.progress, stderr)
	if err != nil {
		return err
	}
	defer stage.Discard()
	o.pipe.Progress = pr
	ps, err := pipeline.NewScene(in.images, in.sets, o.pipe.Features.Extraction().MaxDim)
	if err != nil {
		return err
	}
	ps.Camera, ps.MaxPixels = o.camera, o.pipe.Features.MaxPixels
	res, err := pipeline.MatchGiven(ctx, ps, in.matches, o.pipe)
	if err != nil {
		return err
	}
	if o.progress != "json" {
		printStageLines(stderr, res, &matchOptions{pipe: o.pipe, camera: o.camera})
	}
	w.dir, w.res, w.timing["read"] = stage.Dir, res, read.Seconds()
	if o.progress != "json" {
		w.stderr = stderr
	}
	if err := w.write(ctx); err != nil {
		return err
	}
	if err := w.writeReport(time.Since(start)); err != nil {
		return err
	}
	if err := stage.Publish(); err != nil {
		return err
	}
	w.printSummary(stdout)
	return nil
}

// sceneInputs are what the pipeline takes from a database: the images,
// their keypoints and the matches of each pair.
type sceneInputs struct {
	images  []pipeline.Image
	sets    []*features.Set
	matches []pairwise.Pair
}

// sceneInputs makes the pipeline's inputs from scene, and the camera
// every image shares when the database knows it and -intrinsics does
// not say otherwise.
func (o *tracksOptions) sceneInputs(db string, scene *colmap.Scene) (*sceneInputs, error) {
	if len(scene.Pairs) == 0 {
		return nil, fmt.Errorf("%s: no image pair has matches in %s (run a matcher on it first)", db, o.matchTable())
	}
	in := &sceneInputs{}
	for i, name := range scene.Names {
		im := pipeline.Image{Name: name}
		if o.images != "" {
			im.Path = filepath.Join(o.images, filepath.FromSlash(name))
			if _, err := os.Stat(im.Path); err != nil {
				return nil, cmdline.Usagef("-images: %v", err)
			}
		}
		in.images = append(in.images, im)
		in.sets = append(in.sets, keypointSet(name, scene.Cameras[scene.CameraOf[i]], scene.Keypoints[i]))
	}
	for _, p := range scene.Pairs {
		ms := make([]pairwise.Match, 0, len(p.Matches))
		for k, m := range p.Matches { // sorted: duplicates are neighbours
			if k == 0 || m != p.Matches[k-1] {
				ms = append(ms, pairwise.Match{A: int32(m[0]), B: int32(m[1])})
			}
		}
		in.matches = append(in.matches, pairwise.Pair{I: p.I, J: p.J, Matches: ms})
	}
	if o.intrinsics == "" {
		o.camera = sharedCamera(scene)
	}
	return in, nil
}

// matchTable is the table -matches names.
func (o *tracksOptions) matchTable() colmap.MatchTable {
	if o.table == "raw" {
		return colmap.Raw
	}
	return colmap.Verified
}

// keypointSet is an image's keypoints as clearmatch holds them: OpenCV's
// pixel convention, SIFT's size (twice the affine shape's scale) and
// orientation in degrees; no descriptors.
func keypointSet(name string, cam colmap.Camera, kps []colmap.Keypoint) *features.Set {
	s := &features.Set{Image: name, Width: cam.Width, Height: cam.Height, Keypoints: make([]features.Keypoint, len(kps))}
	for k, kp := range kps {
		a, b := float64(kp.A11), float64(kp.A21)
		s.Keypoints[k] = features.Keypoint{X: kp.X - 0.5, Y: kp.Y - 0.5, Size: float32(2 * math.Hypot(a, b)),
			Angle: float32(math.Atan2(b, a) * 180 / math.Pi)}
	}
	return s
}

// sharedCamera is the camera every image of scene shares, in clearmatch's
// convention, when the database knows its focal length; none otherwise.
func sharedCamera(scene *colmap.Scene) geom.Intrinsics {
	c, shared := scene.SharedCamera()
	if !shared {
		return geom.Intrinsics{}
	}
	cam := scene.Cameras[c]
	in, ok := cam.Pinhole()
	if !ok || !cam.PriorFocal {
		return geom.Intrinsics{}
	}
	return geom.Intrinsics{Fx: in.Fx, Fy: in.Fy, Cx: in.Cx - 0.5, Cy: in.Cy - 0.5}
}
