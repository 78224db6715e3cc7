// Package match is the clearmatch commands that make tracks: match (image
// files through the pipeline) and tracks (a COLMAP database's keypoints
// and matches through the stages after matching). Both write tracks.json,
// matches.csv, report.json and COLMAP exports the same way; clearmatch-beam
// runs match's command line with its own Runner.
package match

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pipeline"
	"github.com/clearmatch/clearmatch/tracks"
)

const matchUsage = `match [flags] DIR|IMAGE... -out OUTDIR

Finds SIFT features in the images, matches and verifies the image pairs,
and makes the matches cycle-consistent tracks with CLEAR. Writes into OUTDIR:
  tracks.json   the tracks: which keypoint of which image sees one scene point
  matches.csv   the consistent pairwise matches: image_a,kp_a,image_b,kp_b
  report.json   what each stage did, per image and per pair, and its time
  colmap/       with -export colmap: database.db for colmap mapper, and the
                text formats for COLMAP's feature and matches importers
  overlays/     with -overlays: pictures of the tracks and of the matches
The manual (docs/outputs.md) describes every file and field.

Example:
  clearmatch match photos/ -out run -export colmap
  mkdir -p run/sparse
  colmap mapper --database_path run/colmap/database.db --image_path photos --output_path run/sparse`

type matchOptions struct {
	out, overlayPairs, pairsArg, gt string
	progress                        string
	force, overlays                 bool
	cache                           cacheFlags
	verify                          verifyFlags
	solve                           solveFlags
	track                           trackFlags
	exp                             exportFlags
	pipe                            pipeline.Options
	// camera is -intrinsics (zero: unknown): the scene's, not a stage's.
	camera geom.Intrinsics
}

// addFlags defines match's flags by group, as -h all lists them: the
// output's here, the pipeline's one function per options group
// (matchflags.go), every default from pipeline.DefaultOptions.
func (o *matchOptions) addFlags(fs *cmdline.FlagSet) {
	o.pipe = pipeline.DefaultOptions()
	p := &o.pipe
	fs.Group("Output", func(fs *flag.FlagSet) {
		fs.StringVar(&o.out, "out", "", "output directory (required)")
		fs.BoolVar(&o.force, "force", false, "write into a non-empty output directory")
		fs.BoolVar(&o.overlays, "overlays", false, "draw overlays/: every image with its keypoints coloured by track, and match pictures of -overlay-pairs (full resolution: about 8 MB and 3 s an image)")
		fs.StringVar(&o.overlayPairs, "overlay-pairs", "next", "with -overlays, the pairs whose matches are drawn: next (each image with the next), none, or i-j,k-l (0-based); giving pairs turns -overlays on")
		fs.StringVar(&o.gt, "gt", "", "folder of ground-truth cameras (Strecha's NAME.camera): score every stage's matches (Sampson distance) and the tracks they chain into (triangulated from the true cameras) under the true geometry (ground_truth.json)")
		fs.IntVar(&p.Workers, "workers", p.Workers, "parallel workers (0: GOMAXPROCS)")
		fs.StringVar(&o.progress, "progress", "text", "progress on stderr: text, for a person, or json, one object a line (stage, done, total, unit, rate, elapsed_s) for scripts and GUIs")
	})
	fs.Group("Features (SIFT)", func(fs *flag.FlagSet) { addFeatureFlags(fs, &p.Features) })
	fs.Group("Cache", func(fs *flag.FlagSet) { addCacheFlags(fs, &o.cache) })
	fs.Group("Pairs", func(fs *flag.FlagSet) { addPairFlags(fs, &p.Pairs, &o.pairsArg) })
	fs.Group("Matching", func(fs *flag.FlagSet) { addMatchingFlags(fs, &p.Matching) })
	fs.Group("Verification", func(fs *flag.FlagSet) { addVerifyFlags(fs, &p.Verification, &o.verify) })
	fs.Group("Solve (CLEAR)", func(fs *flag.FlagSet) { addSolveFlags(fs, &p.Solve, &o.solve, &p.Tracks.MinTrack) })
	fs.Group("Track stages", func(fs *flag.FlagSet) { addTrackFlags(fs, &p.Tracks, &o.track) })
	fs.Group("Export", func(fs *flag.FlagSet) { addExportFlags(fs, &o.exp) })
}

// matchCommon are the flags `clearmatch match -h` shows; the rest tune the
// stages and show with -h all.
var matchCommon = []string{"out", "export", "intrinsics", "camera-model", "max-dim", "pairs", "force", "workers", "cache", "overlays"}

// Run is `clearmatch match args...`: an image folder in, tracks, matches,
// a report and exports out.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	return runBy(ctx, args, pipeline.Run, stdout, stderr)
}

// runBy is Run with the stages run by run.
func runBy(ctx context.Context, args []string, run Runner, stdout, stderr io.Writer) error {
	start := time.Now()
	var o matchOptions
	inputs, err := o.parse(args, stdout)
	if err != nil {
		return err
	}
	defer lowGC()()
	if err := cmdline.NeedOpenCV(); err != nil {
		return err
	}
	in, err := o.readInputs(inputs)
	if err != nil {
		return err
	}
	stage, pr, err := beginRun(o.out, o.force, o.progress, stderr)
	if err != nil {
		return err
	}
	defer stage.Discard()
	o.pipe.Progress = pr
	res, err := run(ctx, in.images, o.camera, o.pipe)
	if err != nil {
		return err
	}
	printRunWarnings(stderr, res)
	if len(res.Skipped) > 0 && (o.pipe.Pairs.List != nil || in.overlayPairs != nil) {
		return fmt.Errorf("%d images were skipped, so -pairs and -overlay-pairs indices no longer apply; fix or remove them (or use -strict)", len(res.Skipped))
	}
	if o.progress != "json" {
		printStageLines(stderr, res, &o)
	}
	w := &matchWriter{dir: stage.Dir, res: res, o: &o, timing: stepTimes{}}
	scores, err := w.writeOutputs(ctx, in, pr, stderr)
	if err != nil {
		return err
	}
	timing, err := w.writeReport(time.Since(start))
	if err != nil {
		return err
	}
	if err := stage.Publish(); err != nil {
		return err
	}
	printMatchSummary(stdout, res, w.tracks, w.ms, cmp.Or(o.pipe.Tracks.MinTrack.Min, tracks.DefaultMinTrack))
	printTiming(stdout, timing, res.CacheHits)
	if scores.stages != nil {
		printStageScores(stdout, scores.stages, scores.tracks)
	}
	printNextStep(stdout, &o, in.images)
	return nil
}

// parse reads match's arguments: the flags, checked, and the inputs.
func (o *matchOptions) parse(args []string, stdout io.Writer) ([]string, error) {
	fs := cmdline.NewFlags("match", matchUsage, stdout)
	fs.Common = matchCommon
	o.addFlags(fs)
	inputs, err := cmdline.ParseInterleaved(fs, args)
	if err != nil {
		return nil, err
	}
	if err := o.check(inputs); err != nil {
		return nil, err
	}
	return inputs, o.checkDependencies(fs.Given())
}

// matchInputs are what a run reads besides the options: the images, the
// ground-truth cameras of -gt and the pairs of -overlay-pairs.
type matchInputs struct {
	images       []pipeline.Image
	gt           map[string]datasets.Camera
	overlayPairs [][2]int
}

// readInputs lists the images and reads the files the flags name (-gt,
// -pairs FILE), before any work starts.
func (o *matchOptions) readInputs(inputs []string) (*matchInputs, error) {
	images, err := pipeline.Images(inputs)
	if err != nil {
		return nil, err
	}
	if len(images) < 2 {
		return nil, fmt.Errorf("%s is one image; matching needs two or more", images[0].Path)
	}
	in := &matchInputs{images: images}
	if o.gt != "" {
		if in.gt, err = datasets.ReadStrechaCameras(o.gt); err != nil {
			return nil, fmt.Errorf("-gt: %w", err)
		}
	}
	if in.overlayPairs, err = parseOverlayPairs(o.overlayPairs, len(images)); err != nil {
		return nil, err
	}
	switch o.pairsArg {
	case pipeline.PairsAuto, pipeline.PairsExhaustive, pipeline.PairsSequential, pipeline.PairsRetrieval:
		o.pipe.Pairs.Mode = o.pairsArg
	default:
		if o.pipe.Pairs.List, err = readPairsFile(o.pairsArg, pipeline.Names(images)); err != nil {
			return nil, err
		}
	}
	return in, nil
}

// groundTruthScores are -gt's tables.
type groundTruthScores struct {
	stages []eval.StageScore
	tracks []eval.TrackScore
}

// writeOutputs writes the tracks, and as the flags ask the COLMAP export,
// the ground-truth scores and the overlays, timing each.
func (w *matchWriter) writeOutputs(ctx context.Context, in *matchInputs, pr cmdline.ProgressPrinter, stderr io.Writer) (groundTruthScores, error) {
	var sc groundTruthScores
	if err := w.writeTracks(); err != nil {
		return sc, err
	}
	if w.o.exp.format == "colmap" {
		if err := w.timing.timed("export", func() error { return writeColmap(filepath.Join(w.dir, "colmap"), w.res, w.ms, w.o, stderr) }); err != nil {
			return sc, err
		}
	}
	if w.o.gt != "" {
		var err error
		if sc.stages, sc.tracks, err = w.writeGroundTruth(in.gt); err != nil {
			return sc, err
		}
	}
	if w.o.overlays {
		if err := w.timing.timed("overlays", func() error { return w.writeOverlays(ctx, in.overlayPairs, pr.Stage("overlays")) }); err != nil {
			return sc, err
		}
	}
	return sc, nil
}

// checkDependencies refuses flags asked for that need another stage: the
// track stages need verified geometry (without -verify they do nothing,
// so asking for one is an error); the rotation-loop check needs
// intrinsics, the self-calibration their absence.
func (o *matchOptions) checkDependencies(given func(string) bool) error {
	p := &o.pipe
	if given("overlay-pairs") && o.overlayPairs != "none" {
		o.overlays = true
	}
	t := &p.Tracks
	if p.Verification.Off {
		for _, dep := range []struct {
			flag string
			on   bool
			why  string
		}{
			{"complete", !t.Complete.Off, "completion follows verified epipolar geometry"},
			{"weak-pairs", !t.Weak.Off, "the filter refits verified pairs' models"},
			{"reproj-filter", !t.Reproj.Off, "it reconstructs the images from verified tracks"},
		} {
			if given(dep.flag) && dep.on {
				return cmdline.Usagef("-%s needs -verify: %s", dep.flag, dep.why)
			}
		}
	}
	if given("rotation-loops") && !t.Weak.Loops.Off && (p.Verification.Off || !o.camera.Known()) {
		return cmdline.Usagef("-rotation-loops needs -verify and -intrinsics: it checks the rotations of essential matrices")
	}
	if given("self-calibrate") && !t.Calibrate.Off && (p.Verification.Off || o.camera.Known()) {
		return cmdline.Usagef("-self-calibrate needs -verify and no -intrinsics: it calibrates from verified tracks when the camera is unknown")
	}
	return nil
}

// writeColmap writes, for a verified run, database.db (any image name)
// and the COLMAP text formats for what their lines can express: one
// warning line names the images they leave out, and a name they cannot
// hold at all (a line break) costs the text formats, never the database
// or the other outputs.
func writeColmap(dir string, res *pipeline.Result, ms []export.Match, o *matchOptions, stderr io.Writer) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	left, err := export.WriteColmapText(dir, res.Output(), ms)
	switch {
	case err != nil:
		holds := "database.db holds every image"
		if res.Verified == nil {
			holds = "the other outputs are written"
		}
		fmt.Fprintf(stderr, "warning: colmap text formats (features/, matches.txt) not written: %v, which their lines cannot express; %s\n", err, holds)
	case left != nil:
		fmt.Fprintf(stderr, "warning: colmap/matches.txt leaves out the pairs of %d image(s) whose names hold a space, which its lines cannot express: %s; database.db and features/ hold them\n", len(left), cmdline.QuoteList(left))
	}
	if res.Verified == nil {
		fmt.Fprintln(stderr, "warning: colmap/database.db needs verified geometry; with -verify=false only the text formats are written")
		return nil
	}
	cams, camOf, err := export.ColmapCameras(res.Images, res.Sets, export.CameraOptions{
		Model: o.exp.cameraModel, PerImage: !o.exp.singleCamera, Intrinsics: o.camera, SelfCalibration: res.SelfCalibration})
	if err != nil {
		return err
	}
	if sc := res.SelfCalibration; sc != nil && sc.Accepted && cams[0].Source != "self-calibration" {
		fmt.Fprintln(stderr, "warning: the self-calibrated camera is not exported: the images' focal priors (EXIF) differ, so they need not share one camera")
	}
	pairs, dropped := export.ColmapPairs(res, ms)
	db := export.ColmapDatabase{Sets: res.Output(), Cameras: cams, CameraOf: camOf, Pairs: pairs}
	if err := db.Write(filepath.Join(dir, "database.db")); err != nil {
		return err
	}
	n := 0
	for _, p := range pairs {
		n += len(p.Matches)
	}
	fmt.Fprintf(stderr, "colmap   database.db: %s, %s (focal %.1f px, from %s), %s, %s matches (%s track matches off their pair's verified geometry left out)\n",
		cmdline.Plural(len(res.Sets), "image"), cmdline.Plural(len(cams), "camera"), cams[0].Params[0], cams[0].Source, cmdline.Plural(len(pairs), "image pair"), cmdline.Count(n), cmdline.Count(dropped))
	return nil
}

// lowGC sets GOGC 25 unless the environment sets GOGC, and returns what
// restores it. Most of match's and tracks' heap is arrays without
// pointers (descriptors, keypoints, matches, CLEAR's graph), which cost
// the collector nothing to scan; Go's default (GOGC 100) lets the heap
// grow to twice them before collecting. A 25% margin keeps the peak near
// the live data for little CPU.
func lowGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(25)
	return func() { debug.SetGCPercent(old) }
}
