// Package fuse is the clearmatch commands for landmark maps: fuse (maps
// from a CSV or a robot log fused with CLEAR, scored, and handed to SLAM as
// g2o) and synth-landmarks (a simulated run with its true association).
// Flags, usage errors and progress are package cmdline's, as every
// command's.
package fuse

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/compare"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/fusion"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/localmap"
	"github.com/clearmatch/clearmatch/multiway"
)

const fuseUsage = `fuse MAPS -out DIR [flags]

Fuses landmark maps into one with CLEAR, the CLEAR paper's map-fusion
experiment: the landmarks of every two local maps are paired by geometric
consistency alone (no descriptor, no global pose), CLEAR makes the pairings
cycle consistent, clusters smaller than -min-cluster are dropped, and each
cluster becomes one fused landmark. The map poses and fused landmarks are
then optimized together (odometry and observations, a robust kernel), the
landmarks associated again where the optimized map puts them, and the map
optimized once more (-reassociate). Given several robots' logs, robots the
association could not place together are placed by their optimized maps
where those align beyond chance, and associated and optimized once more
there (-join).

MAPS is a CSV of local maps (header map,landmark,x,y and optionally z,truth)
or a robot log folder (odometry and range-bearing detections, cut into
-window second maps). Writes into DIR:
  report.json    one record per method (and the first one +reassociated):
                 dn, pp, pbar (with poses; in the odometry and the optimized
                 frame), precision, recall, f1 (with truth), seconds,
                 clusters, the trajectory against GPS (a log's gps.csv)
  assignment.csv map,landmark,cluster of the map written (the first
                 method's, reassociated)
  landmarks.csv, landmarks.json  its fused landmarks in the odometry frame
  optimized-*    poses, landmarks, trajectory and figure, optimized
  map.g2o        the optimized problem for g2o or GTSAM
  maps.csv, poses.csv  the local maps and poses built from a log
The manual (docs/fuse.md) describes the formats.

Example:
  clearmatch fuse victoria-park/ -motion ackermann -bearing-ahead 1.5708 -out fused`

// fuseOptions are fuse's flags.
type fuseOptions struct {
	out, poses, methods, motion, columns string
	reference, kernel                    string
	reassociate, join, doubt, aloneFirst bool
	odometry, detections                 string
	force                                bool
	minCluster                           int
	seed                                 uint64
	dnDistance                           float64
	log                                  localmap.LogOptions
	car                                  localmap.Ackermann
	assoc                                fusion.AssociateOptions
	methodList                           []string
	// doubtMapsAlone doubts each map alone (fusion.Doubt without Runs
	// and Contested): set for each robot's map made alone within a
	// team's run (robotsAlone).
	doubtMapsAlone bool
}

func (o *fuseOptions) addFlags(fs *cmdline.FlagSet) {
	fs.Group("Output", func(fs *flag.FlagSet) {
		fs.StringVar(&o.out, "out", "", "output directory (required)")
		fs.BoolVar(&o.force, "force", false, "write into a non-empty output directory")
		fs.StringVar(&o.methods, "methods", "clear", "methods, comma separated, the first one's map written: clear, "+strings.Join(multiway.Methods[1:], ", ")+", baseline (the pairings' connected components), or all; NAME+merge joins its clusters that pairings link where no map would hold two of a cluster's landmarks")
		fs.IntVar(&o.minCluster, "min-cluster", fusion.DefaultMinCluster, "drop clusters of fewer observations (the paper's post-processing; 1 keeps every one)")
		fs.Float64Var(&o.dnDistance, "dn-distance", fusion.DefaultDNDistance, "metres: an associated pair farther apart in the odometry frame is a definite negative")
		fs.StringVar(&o.reference, "gps", "", "CSV time,x,y: positions measured apart from the odometry, to score the optimized trajectory against (a log folder's gps.csv, .txt or .dat by default)")
		fs.StringVar(&o.poses, "poses", "", "CSV map,x,y,theta[,robot]: each map frame's pose in its robot's odometry frame (needed for dn and pp; a log gives its own); with a robot column, each robot's frame is its own")
		fs.IntVar(&o.assoc.Workers, "workers", 0, "parallel workers (0: GOMAXPROCS)")
		fs.Uint64Var(&o.seed, "seed", 1, "seed of the randomized methods")
	})
	fs.Group("Optimization", func(fs *flag.FlagSet) {
		fs.StringVar(&o.kernel, "kernel", string(fusion.DefaultKernel), "robust loss on the observations: gnc (graduated Geman–McClure: drops a wrong association's pull) or huber")
		fs.BoolVar(&o.join, "join", true, "with -reassociate and several robots: place the robots the association left apart by their optimized maps, where those align beyond chance, and associate and optimize again there")
		fs.BoolVar(&o.aloneFirst, "alone-first", true, "with -track, -join, several robots and no -tolerance: also fuse each robot's maps alone and join those; that map is written where it holds fewer landmarks than the team's")
		fs.BoolVar(&o.doubt, "doubt", true, "with -track: leave out of their clusters the landmarks of a map (alone or with one or two beside it) that another placement, as near the odometry, assigns to other landmarks as well, and observations over three eighths of the way to another landmark: precision for recall")
		fs.BoolVar(&o.reassociate, "reassociate", true, "after optimizing, associate again where the optimized map puts the landmarks (within the tolerance, never two of a map's landmarks together) and optimize again: the map written, reported as METHOD"+fusion.ReassociatedSuffix)
	})
	fs.Group("Robot log", func(fs *flag.FlagSet) {
		fs.Float64Var(&o.log.Window, "window", 20, "seconds of the run in each local map")
		fs.StringVar(&o.motion, "motion", "unicycle", "odometry model: unicycle (time, speed, turn rate) or ackermann (time, encoder speed, steering)")
		o.car = localmap.VictoriaPark
		fs.Float64Var(&o.car.Wheelbase, "wheelbase", o.car.Wheelbase, "ackermann: wheelbase, m (Victoria Park's car by default)")
		fs.Float64Var(&o.car.EncoderOffset, "encoder-offset", o.car.EncoderOffset, "ackermann: the speed encoder's lateral offset from the rear axle centre, m")
		fs.Float64Var(&o.car.SensorAhead, "sensor-ahead", o.car.SensorAhead, "ackermann: the sensor's distance ahead of the rear axle, m")
		fs.Float64Var(&o.car.SensorLeft, "sensor-left", o.car.SensorLeft, "ackermann: the sensor's distance left of the rear axle centre, m")
		fs.Float64Var(&o.log.BearingAhead, "bearing-ahead", 0, "the bearing of straight ahead in the log, rad (Victoria Park's laser: 1.5708)")
		fs.StringVar(&o.columns, "columns", "time,range,bearing", "the detections file's columns: time, range, bearing, truth, - (ignored)")
		fs.StringVar(&o.odometry, "odometry", "", "the odometry file, when the log folder's is not named odometry.csv, .txt, .dat or inputs.dat")
		fs.StringVar(&o.detections, "detections", "", "the detections file, when the log folder's is not named detections.csv, .txt, .dat or measurements.dat")
		fs.Float64Var(&o.log.MergeRadius, "merge-radius", 0, "sightings within this many metres in one window are one landmark (0: from the log)")
		fs.BoolVar(&o.log.MergeByTruth, "merge-by-truth", false, "merge a window's sightings by their truth column (a barcode or tag the sensor reads) instead of by radius; the association across maps still ignores it")
		fs.BoolVar(&o.log.SkipEmpty, "skip-empty", false, "skip windows without a detection instead of stopping")
		fs.Float64Var(&o.log.Start, "start", 0, "use the run from this many seconds after its first detection")
		fs.Float64Var(&o.log.Duration, "duration", 0, "use this many seconds of the run (0: the rest)")
	})
	fs.Group("Association", func(fs *flag.FlagSet) {
		fs.Float64Var(&o.assoc.Tolerance, "tolerance", 0, "metres within which a pairing must fit its map pair's rigid motion (0: a quarter of the landmarks' median spacing, at most 1; tracked maps are then also made at "+fmt.Sprint(fusion.WiderTolerance)+" times that, and the map of fewer landmarks written)")
		fs.IntVar(&o.assoc.MinMatches, "min-matches", fusion.DefaultMinMatches, "fewest pairings for two maps to be associated")
		fs.Float64Var(&o.assoc.MinShare, "min-share", fusion.DefaultMinShare, "least fraction of the landmarks where two maps overlap that the pairings must cover")
		fs.Float64Var(&o.assoc.Drift, "drift", 0, "with poses: the odometry's position error per metre of path between two maps (m/m), which sets the gate around the motion the poses predict (0: estimated from the map pairs associated without it, or from neighbouring maps where those are too few; negative: ignore the poses while associating)")
		fs.Float64Var(&o.assoc.TurnDrift, "turn-drift", 0, "with poses: the odometry's heading error per metre of path, rad/m (0: estimated with -drift 0, else "+fmt.Sprint(fusion.DefaultTurnDrift)+")")
		fs.IntVar(&o.assoc.MinPosed, "min-posed", fusion.DefaultMinPosed, "with poses: fewest pairings inside the gate, all consistent, for two maps to be associated")
		fs.BoolVar(&o.assoc.Track, "track", false, "with poses: also track each robot's maps in time order, each placed by the landmarks of the maps before it (pairings kept where tracking forwards and backwards agree); for maps whose landmarks are identified per map, so on by default with -merge-by-truth")
	})
}

// LogManifest is the file in a robot log folder that says how to read
// it: fuse's flags, as on the command line ('#' starts a comment), which
// the command line's override.
const LogManifest = "log-flags.txt"

// parse reads fuse's arguments: a log folder's manifest first, then the
// command line, checked. A log folder read without its motion model and
// bearing convention stated (by flags or manifest) is refused: a wrong
// guess reads steering as turn rates and reports a plausible map.
func (o *fuseOptions) parse(args []string, stdout io.Writer) ([]string, error) {
	fs := cmdline.NewFlags("fuse", fuseUsage, stdout)
	o.addFlags(fs)
	inputs, err := cmdline.ParseInterleaved(fs, args)
	if err != nil {
		return nil, err
	}
	if len(inputs) == 0 {
		return nil, o.check(inputs)
	}
	if fi, err := os.Stat(inputs[0]); err == nil && fi.IsDir() {
		manifest, err := readManifest(inputs[0])
		if err != nil {
			return nil, err
		}
		*o = fuseOptions{}
		fs = cmdline.NewFlags("fuse", fuseUsage, stdout)
		o.addFlags(fs)
		if err := fs.ParseArgs(manifest); err != nil || fs.NArg() > 0 {
			return nil, cmdline.Usagef("%s: want fuse's flags (%v)", filepath.Join(inputs[0], LogManifest), err)
		}
		if inputs, err = cmdline.ParseInterleaved(fs, args); err != nil {
			return nil, err
		}
		given := fs.Given()
		if !given("motion") || !given("bearing-ahead") {
			return nil, cmdline.Usagef("%s is a robot log: say how to read it with -motion (unicycle: time, speed, turn rate; ackermann: time, encoder speed, steering) and -bearing-ahead (the bearing of straight ahead, rad: 0, or 1.5708 for a scanner measuring from its right), or write them into %s (docs/fuse.md)",
				inputs[0], filepath.Join(inputs[0], LogManifest))
		}
	}
	if o.log.MergeByTruth && !fs.Given()("track") && o.assoc.Drift >= 0 {
		o.assoc.Track = true // landmarks identified per map are tracked (docs/decisions.md)
	}
	return inputs, o.check(inputs)
}

// readManifest returns the flags of dir's LogManifest (none when there is
// none).
func readManifest(dir string) ([]string, error) {
	path := filepath.Join(dir, LogManifest)
	b, err := cmdline.ReadSmallFile(path, 1<<16)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var args []string
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		args = append(args, strings.Fields(line)...)
	}
	return args, nil
}

// check refuses impossible values before any work.
func (o *fuseOptions) check(inputs []string) error {
	switch {
	case o.out == "":
		return cmdline.Usagef("-out is required")
	case len(inputs) == 0:
		return cmdline.Usagef("want MAPS: a local-map CSV, a robot log folder, or several robots' log folders")
	case len(inputs) > 1 && !allFolders(inputs):
		return cmdline.Usagef("%s: several inputs must all be robot log folders (one robot each)", strings.Join(inputs, " "))
	case len(inputs) > 1 && (o.poses != "" || o.reference != "" || o.odometry != "" || o.detections != ""):
		return cmdline.Usagef("-poses, -gps, -odometry and -detections name one robot's files: with several log folders each folder's own are read")
	case o.minCluster < 1:
		return cmdline.Usagef("-min-cluster %d: want 1 or more", o.minCluster)
	case !(o.dnDistance > 0) || !cmdline.Finite(o.dnDistance):
		return cmdline.Usagef("-dn-distance %v: want a positive number of metres", o.dnDistance)
	case !(o.log.Window > 0) || !cmdline.Finite(o.log.Window):
		return cmdline.Usagef("-window %v: want a positive number of seconds", o.log.Window)
	case o.assoc.Tolerance < 0 || !cmdline.Finite(o.assoc.Tolerance) || o.assoc.MinMatches < 3 || !(o.assoc.MinShare >= 0 && o.assoc.MinShare <= 1):
		return cmdline.Usagef("-tolerance %v, -min-matches %d, -min-share %v: want a tolerance ≥ 0, at least 3 matches, a share in [0, 1]", o.assoc.Tolerance, o.assoc.MinMatches, o.assoc.MinShare)
	case !cmdline.Finite(o.assoc.Drift) || !(o.assoc.TurnDrift >= 0) || !cmdline.Finite(o.assoc.TurnDrift) || o.assoc.MinPosed < 2:
		return cmdline.Usagef("-drift %v, -turn-drift %v, -min-posed %d: want a finite drift (0: estimated; negative: no gate), a turn drift of 0 or more, at least 2 pairings", o.assoc.Drift, o.assoc.TurnDrift, o.assoc.MinPosed)
	case o.log.Start < 0 || o.log.Duration < 0 || !cmdline.Finite(o.log.Start) || !cmdline.Finite(o.log.Duration):
		return cmdline.Usagef("-start %v, -duration %v: want 0 or more seconds", o.log.Start, o.log.Duration)
	case o.log.MergeRadius < 0 || !cmdline.Finite(o.log.MergeRadius) || !cmdline.Finite(o.log.BearingAhead):
		return cmdline.Usagef("-merge-radius %v: want 0 or more metres", o.log.MergeRadius)
	case o.log.MergeByTruth && o.log.MergeRadius > 0:
		return cmdline.Usagef("-merge-by-truth and -merge-radius %v: choose one", o.log.MergeRadius)
	case o.assoc.Track && o.assoc.Drift < 0:
		return cmdline.Usagef("-track and -drift %v: tracking follows the poses a negative drift ignores", o.assoc.Drift)
	}
	if _, err := cmdline.OneOf("-kernel", o.kernel, map[string]bool{string(fusion.GNC): true, string(fusion.Huber): true}); err != nil {
		return err
	}
	switch o.motion {
	case "unicycle":
		o.log.Motion = localmap.Unicycle{}
	case "ackermann":
		o.log.Motion = o.car
	default:
		return cmdline.Usagef("-motion %q: want unicycle or ackermann", o.motion)
	}
	o.methodList = strings.Split(o.methods, ",")
	if o.methods == "all" {
		o.methodList = append(append([]string{}, multiway.Methods...), fusion.Baseline)
	}
	for _, m := range o.methodList {
		if _, err := cmdline.OneOf("-methods", strings.TrimSuffix(m, fusion.MergeSuffix), fuseMethods()); err != nil {
			return err
		}
	}
	return nil
}

// allFolders reports whether every path is a folder.
func allFolders(paths []string) bool {
	for _, p := range paths {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// robotCount counts the robots s's maps come from (one without
// s.Robots).
func robotCount(s *localmap.Set) int {
	_, robots := fusion.RobotNumbers(s)
	return max(1, robots)
}

func fuseMethods() map[string]bool {
	set := map[string]bool{fusion.Baseline: true}
	for _, m := range multiway.Methods {
		set[m] = true
	}
	return set
}

// Run is `clearmatch fuse args...`: landmark maps in, fused tracks, the
// association's scores, figures and a g2o problem out.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o fuseOptions
	inputs, err := o.parse(args, stdout)
	if err != nil {
		return err
	}
	var s *localmap.Set
	var fromLog bool
	var ref []localmap.Fix
	if len(inputs) > 1 {
		fromLog = true
		if s, err = o.readTeam(inputs); err != nil {
			return err
		}
	} else {
		if s, fromLog, err = o.readMaps(inputs[0]); err != nil {
			return err
		}
		if ref, err = o.readReference(inputs[0], fromLog); err != nil {
			return err
		}
	}
	stage, err := cmdline.NewStage(o.out, o.force)
	if err != nil {
		return err
	}
	defer stage.Discard()
	pr := cmdline.NewProgress(stderr)
	o.assoc.Progress = pr.Stage("associate")
	run, err := o.fuseTracked(ctx, s, pr, stderr)
	if err != nil {
		return err
	}
	a, assocSeconds, s, recs, results, first := run.a, run.assocSeconds, run.s, run.recs, run.results, run.first
	files := map[string][]byte{}
	final, byRecord := first.final, first.byRecord
	placed, model := first.placed, first.model
	if err := o.methodPaths(ctx, placed, model, ref, byRecord, recs, results, stderr); err != nil {
		return err
	}
	if err := writeFused(files, placed, s.Poses != nil, final.result, final.fused, final.graph, o.dnDistance); err != nil {
		return err
	}
	if final.opt != nil {
		if err := o.addOptimized(files, placed, s.Poses != nil, final, ref, recs, results, stderr); err != nil {
			return err
		}
	}
	if s.Poses != nil {
		if err := addFrequencyFigure(files, recs, s); err != nil {
			return err
		}
	}
	for k := range recs {
		recs[k].Maps, recs[k].Landmarks, recs[k].Pairings, recs[k].Tolerance, recs[k].AssociationSeconds = len(s.Maps), s.Landmarks(), len(a.Pairings), a.Tolerance, assocSeconds
		if a.Drift > 0 {
			recs[k].Drift, recs[k].TurnDrift = &a.Drift, &a.TurnDrift
		}
	}
	if err := o.addInputs(files, s, fromLog); err != nil {
		return err
	}
	var rb bytes.Buffer
	if err := export.WriteJSON(&rb, recs); err != nil {
		return err
	}
	files["report.json"] = rb.Bytes()
	if err := cmdline.WriteFiles(stage.Dir, files); err != nil {
		return err
	}
	if err := stage.Publish(); err != nil {
		return err
	}
	printFuseTable(stdout, recs)
	names := make([]string, 0, len(files))
	for n := range files {
		if !strings.HasSuffix(n, ".svg") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	fmt.Fprintf(stdout, "output: %s (%s, and the figures as .svg)\n", o.out, strings.Join(names, ", "))
	return nil
}

// tracks reports whether the association tracked s's maps (-track, and
// poses to track them by); the steps for tracked maps (verifyLong,
// settle) run then only.
func (o *fuseOptions) tracks(s *localmap.Set) bool {
	return o.assoc.Track && s.Poses != nil
}

// readMaps reads MAPS: a local-map CSV (and -poses), or a robot log folder
// cut into maps.
func (o *fuseOptions) readMaps(path string) (*localmap.Set, bool, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, false, fmt.Errorf("%s: no such file or folder", path)
	}
	var s *localmap.Set
	fromLog := fi.IsDir()
	if fromLog {
		l, err := o.readLog(path)
		if err != nil {
			return nil, false, err
		}
		if s, err = localmap.FromLog(l, o.log); err != nil {
			return nil, false, err
		}
	} else if s, err = localmap.ReadCSV(path); err != nil {
		return nil, false, err
	}
	if o.poses != "" {
		if err := localmap.ReadPoses(o.poses, s); err != nil {
			return nil, false, err
		}
	}
	if err := s.Validate(); err != nil {
		return nil, false, fmt.Errorf("%s: %w", path, err)
	}
	if len(s.Maps) == 1 {
		return nil, false, fmt.Errorf("%s: one local map (%q): fusion needs two or more", path, s.Maps[0].Name)
	}
	return s, fromLog, nil
}

// readTeam reads several robots' log folders, each cut into maps, as one
// set: each robot named by its folder, its maps in its own odometry frame.
func (o *fuseOptions) readTeam(dirs []string) (*localmap.Set, error) {
	var sets []*localmap.Set
	var names []string
	for _, d := range dirs {
		l, err := o.readLog(d)
		if err != nil {
			return nil, err
		}
		s, err := localmap.FromLog(l, o.log)
		if err != nil {
			return nil, err
		}
		sets, names = append(sets, s), append(names, filepath.Base(filepath.Clean(d)))
	}
	s, err := localmap.Join(names, sets)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(dirs, " "), err)
	}
	if err := s.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", strings.Join(dirs, " "), err)
	}
	return s, nil
}

// readLog reads the log folder dir, with the files -odometry and
// -detections name in place of the ones it looks for.
func (o *fuseOptions) readLog(dir string) (*localmap.Log, error) {
	odo, det := o.odometry, o.detections
	var err error
	if odo == "" {
		if odo, err = localmap.FindFile(dir, localmap.OdometryFiles); err != nil {
			return nil, err
		}
	}
	if det == "" {
		if det, err = localmap.FindFile(dir, localmap.DetectionsFiles); err != nil {
			return nil, err
		}
	}
	return localmap.ReadLogFiles(odo, det, o.columns)
}

// fuseRecord is one method's line of report.json.
type fuseRecord struct {
	Method     string `json:"method"`
	MinCluster int    `json:"min_cluster"`
	fusion.Scores
	Seconds        float64 `json:"seconds"`
	Clusters       int     `json:"clusters"`
	FusedLandmarks int     `json:"fused_landmarks"`
	Skipped        string  `json:"skipped,omitempty"`
	Maps           int     `json:"maps"`
	Landmarks      int     `json:"landmarks"`
	Pairings       int     `json:"pairings"`
	Tolerance      float64 `json:"tolerance_m"`
	// Drift and TurnDrift are the pose gate's (null without it).
	Drift              *float64 `json:"drift_m_per_m"`
	TurnDrift          *float64 `json:"turn_drift_rad_per_m"`
	AssociationSeconds float64  `json:"association_seconds"`
	// Optimized are dn, pp and pbar in the optimized frame (the first
	// method's map optimized), null as dn or when not optimized.
	Optimized *frameScores `json:"optimized"`
	// The optimization of the first method's map, shared by every record.
	OptimizeSeconds    *float64          `json:"optimize_seconds"`
	OdometryPathError  *fusion.PathError `json:"odometry_path_error"`
	OptimizedPathError *fusion.PathError `json:"optimized_path_error"`
}

// frameScores are the DN, PP and P̄ of fusion.Scores in another frame.
type frameScores struct {
	DN   *int64   `json:"dn"`
	PP   *int64   `json:"pp"`
	PBar *float64 `json:"pbar"`
}

// runMethods runs the methods o.methodList[from:to] and scores each;
// the first of the list must not be skipped.
func (o *fuseOptions) runMethods(ctx context.Context, s *localmap.Set, p *clear.Problem, pr *cmdline.Progress, from, to int) ([]fuseRecord, []*fusion.Result, error) {
	var recs []fuseRecord
	var results []*fusion.Result
	for k := from; k < to; k++ {
		m := o.methodList[k]
		status := func(done, total int) { pr.Status("fuse", done, total, m) }
		r, err := fusion.Run(ctx, m, p, fusion.Options{MinCluster: o.minCluster, Seed: o.seed, Progress: status})
		if err != nil {
			return nil, nil, err
		}
		rec := fuseRecord{Method: m, MinCluster: o.minCluster, Seconds: r.Seconds, Clusters: r.Clusters, Skipped: r.Skipped}
		if r.Skipped == "" {
			rec.Scores = fusion.Score(s, r, o.dnDistance)
			rec.FusedLandmarks = r.Clusters
		}
		if k == 0 && r.Skipped != "" {
			return nil, nil, fmt.Errorf("%s: %s", m, r.Skipped)
		}
		recs, results = append(recs, rec), append(results, r)
	}
	return recs, results, nil
}

// addFrequencyFigure draws P̄ against frequency for the methods that ran.
func addFrequencyFigure(files map[string][]byte, recs []fuseRecord, s *localmap.Set) error {
	var rows []compare.FusionRow
	for _, r := range recs {
		if r.Skipped == "" && r.PBar != nil {
			rows = append(rows, compare.FusionRow{Method: r.Method, PBar: *r.PBar, Seconds: r.Seconds})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	f, err := compare.FusionFrequencyFigure("pbar-frequency", fmt.Sprintf("%d maps, %d landmarks", len(s.Maps), s.Landmarks()), rows)
	if err != nil {
		return err
	}
	cmdline.AddFigures(files, []compare.Figure{f})
	return nil
}

// writeFused adds the first method's association, fused landmarks, map
// figure and pose graph (map.g2o) to files; scored says the poses were
// given (odometry), not placed by the association.
func writeFused(files map[string][]byte, s *localmap.Set, scored bool, r *fusion.Result, fused []fusion.Landmark, g *fusion.PoseGraph, dnDistance float64) error {
	if err := addMapFigure(files, s, scored, r, fused, dnDistance); err != nil {
		return err
	}
	var a, l, j, gb bytes.Buffer
	if err := fusion.WriteAssignment(&a, s, r); err != nil {
		return err
	}
	if err := fusion.WriteLandmarks(&l, s, fused); err != nil {
		return err
	}
	if err := export.WriteJSON(&j, fused); err != nil {
		return err
	}
	if err := g.WriteG2O(&gb); err != nil {
		return err
	}
	files["assignment.csv"], files["landmarks.csv"], files["landmarks.json"], files["map.g2o"] = a.Bytes(), l.Bytes(), j.Bytes(), gb.Bytes()
	return nil
}

// addInputs adds the local maps and poses built from a log to files, in
// the formats fuse reads, so a run can be repeated or inspected.
func (o *fuseOptions) addInputs(files map[string][]byte, s *localmap.Set, fromLog bool) error {
	if !fromLog {
		return nil
	}
	var m, p bytes.Buffer
	if err := localmap.WriteCSV(&m, s); err != nil {
		return err
	}
	if err := localmap.WritePoses(&p, s); err != nil {
		return err
	}
	files["maps.csv"], files["poses.csv"] = m.Bytes(), p.Bytes()
	return nil
}

// printFuseTable prints one line per method.
func printFuseTable(w io.Writer, recs []fuseRecord) {
	fmt.Fprintf(w, "%-20s %8s %8s %10s %9s %9s %9s %7s %7s %9s %9s\n", "method", "clusters", "DN", "PP", "P̄", "P̄ opt", "precision", "recall", "F1", "path RMS", "seconds")
	num := func(v *float64, f string) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprintf(f, *v)
	}
	cnt := func(v *int64) string {
		if v == nil {
			return "-"
		}
		return fmt.Sprint(*v)
	}
	for _, r := range recs {
		if r.Skipped != "" {
			fmt.Fprintf(w, "%-20s skipped: %s\n", r.Method, r.Skipped)
			continue
		}
		var opt, path *float64
		if r.Optimized != nil {
			opt = r.Optimized.PBar
		}
		if r.OptimizedPathError != nil {
			path = &r.OptimizedPathError.RMS
		}
		fmt.Fprintf(w, "%-20s %8d %8s %10s %9s %9s %9s %7s %7s %9s %9.3f\n", r.Method, r.Clusters, cnt(r.DN), cnt(r.PP),
			num(r.PBar, "%.4f"), num(opt, "%.4f"), num(r.Precision, "%.4f"), num(r.Recall, "%.3f"), num(r.F1, "%.3f"), num(path, "%.2f"), r.Seconds)
	}
}

// addMapFigure draws the fused map as the paper's Fig. "slam": the
// trajectory, the observations (coloured by truth when the maps carry
// one), the fused landmarks, and the pairs worth a look: with a truth the
// wrong ones in red; without, with poses, those farther apart than
// dnDistance in the odometry frame (at most 20000).
func addMapFigure(files map[string][]byte, s *localmap.Set, scored bool, r *fusion.Result, fused []fusion.Landmark, dnDistance float64) error {
	m := compare.FusionMap{Title: fmt.Sprintf("%s: %d fused landmarks from %d maps", r.Method, len(fused), len(s.Maps)), Observations: fusion.Positions(s),
		Truth: fusion.TruthLabels(s)}
	for _, p := range s.Trajectory {
		m.Trajectory = append(m.Trajectory, [2]float64{p.X, p.Y})
	}
	for _, l := range fused {
		m.Fused = append(m.Fused, [2]float64{l.X, l.Y})
	}
	switch {
	case m.Truth != nil:
		m.Wrong = fusion.Wrong(s, r, 20000)
	case scored:
		m.Far = fusion.Negatives(s, r, dnDistance, 20000)
		m.FarLabel = fmt.Sprintf("pairs over %g m apart (DN; drift makes right pairs so too)", dnDistance)
	}
	f, err := compare.FusionMapFigure("fused-map", m)
	if err != nil {
		return err
	}
	cmdline.AddFigures(files, []compare.Figure{f})
	return nil
}
