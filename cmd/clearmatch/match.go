package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
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
}

// addFlags defines match's flags by group, as -h all lists them: the
// output's here, the pipeline's one function per options group
// (matchflags.go), every default from pipeline.DefaultOptions.
func (o *matchOptions) addFlags(fs *flagSet) {
	o.pipe = pipeline.DefaultOptions()
	p := &o.pipe
	fs.group("Output", func(fs *flag.FlagSet) {
		fs.StringVar(&o.out, "out", "", "output directory (required)")
		fs.BoolVar(&o.force, "force", false, "write into a non-empty output directory")
		fs.BoolVar(&o.overlays, "overlays", false, "draw overlays/: every image with its keypoints coloured by track, and match pictures of -overlay-pairs (full resolution: about 8 MB and 3 s an image)")
		fs.StringVar(&o.overlayPairs, "overlay-pairs", "next", "with -overlays, the pairs whose matches are drawn: next (each image with the next), none, or i-j,k-l (0-based); giving pairs turns -overlays on")
		fs.StringVar(&o.gt, "gt", "", "folder of ground-truth cameras (Strecha's NAME.camera): score every stage's matches (Sampson distance) and the tracks they chain into (triangulated from the true cameras) under the true geometry (ground_truth.json)")
		fs.IntVar(&p.Workers, "workers", p.Workers, "parallel workers (0: GOMAXPROCS)")
		fs.StringVar(&o.progress, "progress", "text", "progress on stderr: text, for a person, or json, one object a line (stage, done, total, unit, rate, elapsed_s) for scripts and GUIs")
	})
	fs.group("Features (SIFT)", func(fs *flag.FlagSet) { addFeatureFlags(fs, &p.Features) })
	fs.group("Cache", func(fs *flag.FlagSet) { addCacheFlags(fs, &o.cache) })
	fs.group("Pairs", func(fs *flag.FlagSet) { addPairFlags(fs, &p.Pairs, &o.pairsArg) })
	fs.group("Matching", func(fs *flag.FlagSet) { addMatchingFlags(fs, &p.Matching) })
	fs.group("Verification", func(fs *flag.FlagSet) { addVerifyFlags(fs, &p.Verification, &o.verify) })
	fs.group("Solve (CLEAR)", func(fs *flag.FlagSet) { addSolveFlags(fs, &p.Solve, &o.solve) })
	fs.group("Track stages", func(fs *flag.FlagSet) { addTrackFlags(fs, &p.Tracks, &o.track) })
	fs.group("Export", func(fs *flag.FlagSet) { addExportFlags(fs, &o.exp) })
}

// matchCommon are the flags `clearmatch match -h` shows; the rest tune the
// stages and show with -h all.
var matchCommon = []string{"out", "export", "intrinsics", "camera-model", "max-dim", "pairs", "force", "workers", "cache", "overlays"}

func runMatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	start := time.Now()
	var o matchOptions
	fs := newFlags("match", matchUsage, stdout)
	fs.common = matchCommon
	o.addFlags(fs)
	inputs, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if err := o.check(inputs); err != nil {
		return err
	}
	if err := o.checkDependencies(fs.given()); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// Most of match's heap is descriptor arrays, which hold no
		// pointers and cost the collector nothing to scan; Go's default
		// (GOGC 100) lets the heap grow to twice them before collecting.
		// A 25% margin keeps the peak near the live data for little CPU.
		defer debug.SetGCPercent(debug.SetGCPercent(25))
	}
	if err := needOpenCV(); err != nil {
		return err
	}
	images, err := pipeline.Images(inputs)
	if err != nil {
		return err
	}
	if len(images) < 2 {
		return fmt.Errorf("%s is one image; matching needs two or more", images[0].Path)
	}
	var gt map[string]datasets.Camera
	if o.gt != "" {
		if gt, err = datasets.ReadStrechaCameras(o.gt); err != nil {
			return fmt.Errorf("-gt: %w", err)
		}
	}
	overlayPairs, err := parseOverlayPairs(o.overlayPairs, len(images))
	if err != nil {
		return err
	}
	switch o.pairsArg {
	case pipeline.PairsAuto, pipeline.PairsExhaustive, pipeline.PairsSequential, pipeline.PairsRetrieval:
		o.pipe.Pairs.Mode = o.pairsArg
	default:
		if o.pipe.Pairs.List, err = readPairsFile(o.pairsArg, pipeline.Names(images)); err != nil {
			return err
		}
	}
	stage, err := newStage(o.out, o.force)
	if err != nil {
		return err
	}
	defer stage.Discard()

	pr, err := newProgressPrinter(o.progress, stderr)
	if err != nil {
		return err
	}
	o.pipe.Progress = pr
	res, err := pipeline.Run(ctx, images, o.pipe)
	if err != nil {
		return err
	}
	printRunWarnings(stderr, res)
	if len(res.Skipped) > 0 && (o.pipe.Pairs.List != nil || overlayPairs != nil) {
		return fmt.Errorf("%d images were skipped, so -pairs and -overlay-pairs indices no longer apply; fix or remove them (or use -strict)", len(res.Skipped))
	}
	if o.progress != "json" {
		printStageLines(stderr, res, &o)
	}
	w := &matchWriter{dir: stage.Dir, res: res, o: &o, timing: map[string]float64{}}
	if err := w.writeTracks(); err != nil {
		return err
	}
	if o.exp.format == "colmap" {
		if err := w.timed("export", func() error { return writeColmap(filepath.Join(stage.Dir, "colmap"), res, w.ms, &o, stderr) }); err != nil {
			return err
		}
	}
	var gtTable []eval.StageScore
	var gtTracks []eval.TrackScore
	if o.gt != "" {
		if gtTable, gtTracks, err = w.writeGroundTruth(gt); err != nil {
			return err
		}
	}
	if o.overlays {
		if err := w.timed("overlays", func() error { return w.writeOverlays(ctx, overlayPairs, pr.stage("overlays")) }); err != nil {
			return err
		}
	}
	timing, err := w.writeReport(time.Since(start))
	if err != nil {
		return err
	}
	if err := stage.Publish(); err != nil {
		return err
	}
	printMatchSummary(stdout, res, w.tracks, w.ms, o.solve.minTrack)
	printTiming(stdout, timing, res.CacheHits)
	if gtTable != nil {
		printStageScores(stdout, gtTable, gtTracks)
	}
	printNextStep(stdout, &o, images)
	return nil
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
				return usagef("-%s needs -verify: %s", dep.flag, dep.why)
			}
		}
	}
	if given("rotation-loops") && !t.Weak.Loops.Off && (p.Verification.Off || !p.Verification.Intrinsics.Known()) {
		return usagef("-rotation-loops needs -verify and -intrinsics: it checks the rotations of essential matrices")
	}
	if given("self-calibrate") && !t.Calibrate.Off && (p.Verification.Off || p.Verification.Intrinsics.Known()) {
		return usagef("-self-calibrate needs -verify and no -intrinsics: it calibrates from verified tracks when the camera is unknown")
	}
	return nil
}

// scoreStages scores the matches of each stage of the run under the true
// geometry of the ground-truth cameras: ratio, verified (the model's
// inliers), verified+guided (CLEAR's input), clear (the consistent
// matches of CLEAR's tracks), completed (of the tracks after completion,
// ms, when clearMs holds CLEAR's own) and, for a verified run, exported
// (database.db's); and the tracks each stage's matches chain into under
// the true cameras, which also sees the errors along epipolar lines.
func scoreStages(res *pipeline.Result, clearMs, ms []export.Match, gt map[string]datasets.Camera) ([]eval.StageScore, []eval.TrackScore, error) {
	points := keypointPoints(res.Sets)
	names, widths := make([]string, len(res.Sets)), make([]int, len(res.Sets))
	for i, s := range res.Sets {
		names[i], widths[i] = s.Image, s.Width
	}
	proj, have, err := eval.TrueProjections(gt, names, widths)
	if err != nil {
		return nil, nil, fmt.Errorf("-gt: %w", err)
	}
	if have < 2 {
		return nil, nil, fmt.Errorf("-gt: fewer than two of the images have a camera there (NAME.camera for image NAME)")
	}
	fs := map[[2]int][9]float64{}
	truth := func(i, j int) ([9]float64, bool) {
		if f, ok := fs[[2]int{i, j}]; ok {
			return f, true
		}
		ci, ok1 := gt[res.Sets[i].Image]
		cj, ok2 := gt[res.Sets[j].Image]
		if !ok1 || !ok2 {
			return [9]float64{}, false
		}
		f, err := eval.TrueFundamental(ci, cj, res.Sets[i].Width, res.Sets[j].Width)
		if err != nil {
			return [9]float64{}, false
		}
		fs[[2]int{i, j}] = f
		return f, true
	}
	add := func(st eval.StageMatches, i, j, a, b int) {
		if i > j {
			i, j, a, b = j, i, b, a
		}
		st.Pairs[[2]int{i, j}] = append(st.Pairs[[2]int{i, j}], [2]int{a, b})
	}
	newStage := func(name string) eval.StageMatches {
		return eval.StageMatches{Name: name, Pairs: map[[2]int][][2]int{}}
	}
	ratio := newStage("ratio")
	inRatio := map[[4]int]bool{}
	for _, p := range res.Matches {
		for _, m := range p.Matches {
			add(ratio, p.I, p.J, int(m.A), int(m.B))
			inRatio[[4]int{p.I, p.J, int(m.A), int(m.B)}] = true
		}
	}
	stages := []eval.StageMatches{ratio}
	if res.Verified != nil {
		inliers, verified := newStage("verified"), newStage("verified+guided")
		for _, v := range res.Verified {
			if v.Model == pairwise.NoModel {
				continue
			}
			for _, m := range v.Matches {
				if inRatio[[4]int{v.I, v.J, int(m.A), int(m.B)}] {
					add(inliers, v.I, v.J, int(m.A), int(m.B))
				}
				add(verified, v.I, v.J, int(m.A), int(m.B))
			}
		}
		stages = append(stages, inliers, verified)
	}
	consistent := newStage("clear")
	own := clearMs
	if own == nil {
		own = ms
	}
	for _, m := range own {
		add(consistent, m.A, m.B, m.KpA, m.KpB)
	}
	stages = append(stages, consistent)
	if clearMs != nil {
		completed := newStage("completed")
		for _, m := range ms {
			add(completed, m.A, m.B, m.KpA, m.KpB)
		}
		stages = append(stages, completed)
	}
	if res.Verified != nil {
		exported := newStage("exported")
		pairs, _ := export.ColmapPairs(res, ms)
		for _, p := range pairs {
			for _, m := range p.Matches {
				add(exported, p.I, p.J, int(m[0]), int(m[1]))
			}
		}
		stages = append(stages, exported)
	}
	// The ratio matches chain into a few giant components: no tracks.
	sc, tr := eval.ScoreStages(stages, points, truth), eval.ScoreTracks(stages[1:], points, proj)
	if res.Refined != nil && res.Verified != nil {
		// The exported matches again, at the refined keypoints (what
		// database.db holds).
		moved := keypointPoints(res.Refined)
		st := stages[len(stages)-1]
		st.Name = "refined"
		sc = append(sc, eval.ScoreStages([]eval.StageMatches{st}, moved, truth)...)
		tr = append(tr, eval.ScoreTracks([]eval.StageMatches{st}, moved, proj)...)
	}
	return sc, tr, nil
}

// keypointPoints returns every image's keypoint positions.
func keypointPoints(sets []*features.Set) [][]geom.Point {
	points := make([][]geom.Point, len(sets))
	for i, s := range sets {
		points[i] = make([]geom.Point, s.Len())
		for k, kp := range s.Keypoints {
			points[i][k] = geom.Point{X: float64(kp.X), Y: float64(kp.Y)}
		}
	}
	return points
}

func printStageScores(w io.Writer, sc []eval.StageScore, tr []eval.TrackScore) {
	fmt.Fprintf(w, "matches under the true geometry (Sampson distance):\n%-16s %8s %8s %8s %8s %9s %8s %8s %8s\n", "stage", "matches", "<=1px", "<=2px", "<=4px", "prec@2px", "median", "lost", "added")
	for _, s := range sc {
		fmt.Fprintf(w, "%-16s %8d %8d %8d %8d %9.4f %8.3f %8d %8d\n", s.Stage, s.Matches, s.Within1, s.Within2, s.Within4, s.Precision, s.MedianError, s.Lost, s.Added)
	}
	if len(tr) == 0 {
		return
	}
	fmt.Fprintf(w, "tracks of 3+ views as the matches chain, under the true cameras (every observation within N px of the triangulated point):\n%-16s %8s %8s %8s %8s %9s %9s\n", "stage", "tracks", "<=1px", "<=2px", "<=4px", "prec@2px", "conflict")
	for _, s := range tr {
		fmt.Fprintf(w, "%-16s %8d %8d %8d %8d %9.4f %9d\n", s.Stage, s.Tracks, s.Within1, s.Within2, s.Within4, s.Precision, s.Conflicting)
	}
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
		fmt.Fprintf(stderr, "warning: colmap/matches.txt leaves out the pairs of %d image(s) whose names hold a space, which its lines cannot express: %s; database.db and features/ hold them\n", len(left), quoteList(left))
	}
	if res.Verified == nil {
		fmt.Fprintln(stderr, "warning: colmap/database.db needs verified geometry; with -verify=false only the text formats are written")
		return nil
	}
	cams, camOf, err := export.ColmapCameras(res.Images, res.Sets, export.CameraOptions{
		Model: o.exp.cameraModel, PerImage: !o.exp.singleCamera, Intrinsics: o.pipe.Verification.Intrinsics, SelfCalibration: res.SelfCalibration})
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
		plural(len(res.Sets), "image"), plural(len(cams), "camera"), cams[0].Params[0], cams[0].Source, plural(len(pairs), "image pair"), count(n), count(dropped))
	return nil
}

// quoteList quotes names for a one-line message, the first few of many.
func quoteList(names []string) string {
	const most = 5
	q := make([]string, 0, most+1)
	for i, n := range names {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		q = append(q, strconv.Quote(n))
	}
	return strings.Join(q, ", ")
}
