package fuse

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clearmatch/clearmatch/compare"
	"github.com/clearmatch/clearmatch/fusion"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/localmap"
)

// readReference reads -gps, or a log folder's reference file when there
// is one (none otherwise).
func (o *fuseOptions) readReference(input string, fromLog bool) ([]localmap.Fix, error) {
	path := o.reference
	if path != "" && !fromLog {
		return nil, cmdline.Usagef("-gps %s: scoring a trajectory needs a robot log folder (a CSV of maps has no timed trajectory)", path)
	}
	if path == "" && fromLog {
		p, err := localmap.FindFile(input, localmap.ReferenceFiles)
		if err != nil {
			return nil, nil // none: nothing to compare with
		}
		path = p
	}
	if path == "" {
		return nil, nil
	}
	return localmap.ReadReference(path)
}

// mapModel is what the association tells the optimizer, read once a run:
// the measurement noise, each map's frame group (robots AlignRobots placed
// together; nil for one robot), the association's tolerance (the second
// association's radius), and whether its map pairs agree pairwise with
// the odometry (the gate was on: every cluster of two or more then
// constrains the optimizer).
type mapModel struct {
	noise      fusion.Noise
	frames     []int
	tol        float64
	consistent bool
}

// fusedMap is a method's map: its clusters, their landmarks in the
// odometry frame, its pose graph and, when the optimizer ran, the graph
// optimized and the optimizer's time.
type fusedMap struct {
	result  *fusion.Result
	fused   []fusion.Landmark
	graph   *fusion.PoseGraph
	opt     *fusion.Optimized
	seconds float64
}

// newFusedMap builds r's map on s and optimizes it. A planar optimizer
// skips 3-D maps, and a component too large for it is skipped with a
// warning: the association's map stands without it.
func (o *fuseOptions) newFusedMap(ctx context.Context, s *localmap.Set, r *fusion.Result, model mapModel, stderr io.Writer) (*fusedMap, error) {
	return o.newFusedMapFrom(ctx, s, nil, r, model, stderr)
}

// newFusedMapFrom is newFusedMap with the optimizer started from the map
// poses start (nil: s's) and the landmarks where they place them; the
// odometry is s's either way.
func (o *fuseOptions) newFusedMapFrom(ctx context.Context, s *localmap.Set, start []localmap.Pose, r *fusion.Result, model mapModel, stderr io.Writer) (*fusedMap, error) {
	m := &fusedMap{result: r, fused: fusion.Fuse(s, r)}
	var err error
	if m.graph, err = fusion.NewPoseGraph(s, r, m.fused, model.noise); err != nil {
		return nil, err
	}
	if start != nil {
		at := *s
		at.Poses = start
		m.graph.Poses = slices.Clone(start)
		for c, l := range fusion.Fuse(&at, r) {
			m.graph.Landmarks[c] = [2]float64{l.X, l.Y}
		}
	}
	if s.ThreeD {
		fmt.Fprintf(stderr, "optimize skipped: the maps are 3-D and the optimizer planar\n")
		return m, nil
	}
	t0 := time.Now()
	res, err := fusion.Optimize(ctx, m.graph, fusion.OptimizeOptions{Kernel: fusion.Kernel(o.kernel)})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil {
		fmt.Fprintf(stderr, "optimize skipped: %v\n", err)
		return m, nil
	}
	m.opt, m.seconds = res, time.Since(t0).Seconds()
	g := m.graph
	odometry := "no odometry"
	if len(g.Odometry) > 0 {
		odometry = fmt.Sprintf("%d odometry edges (σ per metre %.4f m, %.5f rad)", len(g.Odometry), model.noise.Drift, model.noise.TurnDrift)
	}
	fmt.Fprintf(stderr, "optimize %s: %d maps, %d landmarks, %d observations (σ %.3f m), %s: cost %.4g → %.4g, %s, %.2fs\n",
		r.Method, len(g.Poses), len(g.Landmarks), len(g.Observations), g.LandmarkSigma, odometry, res.InitialCost, res.Cost,
		cmdline.Plural(res.Iterations, "iteration"), m.seconds)
	return m, nil
}

// constraining is r as the optimizer reads it: every cluster of two or
// more when the association's map pairs agree pairwise (fuseFirst).
func constraining(r *fusion.Result, model mapModel) *fusion.Result {
	if model.consistent {
		return fusion.Constraining(r)
	}
	return r
}

// verifyLong checks in's long pose-gated pairs (fusion.VerifyLong)
// against the map the first method makes without them, optimized: a
// pairing is kept where that map puts its two landmarks within two
// tolerances (half the landmark spacing) of each other. Without the
// optimizer's map there is nothing to check against, and in stands.
func (o *fuseOptions) verifyLong(ctx context.Context, s *localmap.Set, in *fusion.Association, model mapModel, stderr io.Writer) (*fusion.Association, error) {
	long := fusion.LongPairings(s, in)
	if long == 0 || s.ThreeD {
		return in, nil
	}
	rest := fusion.WithoutLong(s, in)
	p, err := fusion.Problem(s, rest)
	if err != nil {
		return nil, err
	}
	r, err := fusion.Run(ctx, o.methodList[0], p, fusion.Options{MinCluster: o.minCluster, Seed: o.seed})
	if err != nil {
		return nil, err
	}
	if r.Skipped != "" {
		return in, nil
	}
	m, err := o.newFusedMap(ctx, s, fusion.WithinFrames(s, constraining(r, model), model.frames), model, io.Discard)
	if err != nil || m.opt == nil {
		return in, err
	}
	out := fusion.VerifyLong(s, in, m.opt.Graph.Poses, 2*model.tol)
	fmt.Fprintf(stderr, "verify   %d of %d pairings of maps %d or more apart that only the pose gate paired kept: those the map optimized without them puts within %.2f m\n",
		long-(len(in.Pairings)-len(out.Pairings)), long, fusion.LongGatedMaps, 2*model.tol)
	return out, nil
}

// firstMap is fuseFirst's result: the map fuse writes, the maps it
// optimized by record, the placement and model it ends in (a join moves
// robots into one frame), and how many maps settling moved as half a
// robot's (fusion.RealignSplit).
type firstMap struct {
	final     *fusedMap
	byRecord  map[int]*fusedMap
	placed    *localmap.Set
	model     mapModel
	realigned int
}

// fuseFirst is the map fuse writes: the first method's, optimized, then
// (-reassociate) associated again in the optimized frame within the
// association's tolerance and optimized again, and (-join) robots left
// apart joined by that map (joinRobots); that map's record (METHOD+reassociated,
// scored on s, the maps as given, or on the joined placement) joins recs
// and results after the first.
func (o *fuseOptions) fuseFirst(ctx context.Context, s, placed *localmap.Set, model mapModel, recs *[]fuseRecord, results *[]*fusion.Result, stderr io.Writer) (*firstMap, error) {
	first := (*results)[0]
	if o.reassociate {
		// The map is associated again after the optimization, so the
		// optimizer reads every cluster that constrains it, where the
		// map pairs agree with each other and the odometry (without, a
		// small cluster is as often chance: docs/decisions.md). Robots
		// the association could not place together are optimized apart:
		// a cluster across them is no measurement.
		first = fusion.WithinFrames(placed, constraining(first, model), model.frames)
	}
	m, err := o.newFusedMap(ctx, placed, first, model, stderr)
	alone := &firstMap{final: m, byRecord: map[int]*fusedMap{0: m}, placed: placed, model: model}
	if err != nil || m.opt == nil || !o.reassociate {
		return alone, err
	}
	if len(m.graph.Observations) == 0 {
		// Nothing but the odometry placed the maps: the second association
		// groups landmarks where the drift left them.
		fmt.Fprintf(stderr, "warning: no cluster of %s ties two maps, so the optimizer kept the odometry; the second association runs in the odometry frame, where its drift can join different landmarks (-reassociate=false keeps %s's map alone)\n", first.Method, first.Method)
	}
	t0 := time.Now()
	r := fusion.Reassociate(placed, m.result, m.opt, model.frames, model.tol, o.minCluster)
	r.Method, r.Seconds = m.result.Method+fusion.ReassociatedSuffix, time.Since(t0).Seconds()
	fmt.Fprintf(stderr, "reassociate in the optimized frame, within %.2f m: %d clusters → %d\n", model.tol, m.result.Clusters, r.Clusters)
	again, err := o.newFusedMap(ctx, placed, r, model, stderr)
	if err != nil || again.opt == nil {
		return alone, err
	}
	out := &firstMap{final: again, byRecord: map[int]*fusedMap{0: m, 1: again}, placed: placed, model: model}
	scoredOn := s
	if o.join && model.frames != nil {
		// Each robot's map settled apart is its best: the join aligns
		// those (docs/decisions.md, "Settling before the join").
		if o.tracks(s) {
			if err := o.settleApart(ctx, out, stderr); err != nil {
				return nil, err
			}
		}
		joined, err := o.joinRobots(ctx, out, stderr)
		if err != nil {
			return nil, err
		}
		if joined != nil {
			out, scoredOn = joined, joined.placed
		}
	}
	if o.tracks(s) {
		if err := o.settle(ctx, out, "", stderr); err != nil {
			return nil, err
		}
	}
	r = out.final.result
	rec := fuseRecord{Method: r.Method, MinCluster: o.minCluster, Scores: fusion.Score(scoredOn, r, o.dnDistance), Seconds: r.Seconds,
		Clusters: r.Clusters, FusedLandmarks: r.Clusters}
	*recs = append((*recs)[:1], append([]fuseRecord{rec}, (*recs)[1:]...)...)
	*results = append((*results)[:1], append([]*fusion.Result{r}, (*results)[1:]...)...)
	out.final.seconds += m.seconds
	return out, nil
}

// settle associates f's final map again within fusion.SettleRadius
// tolerances in its optimized frame and optimizes it, from where it was;
// where that changes nothing or comes back to clusters it had left, it
// relocates the maps a placement of their own explains better
// (fusion.Relocate), else a robot's end maps (fusion.RelocateEnds), else
// half a robot's maps where its two halves align (fusion.RealignSplit),
// else a robot's maps placed again along its path where that costs less
// optimized (retrack), and optimizes from there; until nothing changes,
// the clusters come back to an earlier round's, or fusion.SettleRounds
// have run. f then holds the
// last map optimized. For tracked maps only (fusion's settle.go). what,
// when not empty, says which map it settles on stderr.
func (o *fuseOptions) settle(ctx context.Context, f *firstMap, what string, stderr io.Writer) error {
	radius := fusion.SettleRadius * f.model.tol
	start, rounds, moved, how := f.final.result.Clusters, 0, 0, "still changing at the last"
	inHalves := 0  // maps moved as half a robot's (fusion.RealignSplit)
	retracked := 0 // maps placed again along their robot's path (fusion.Retracked)
	seen := []*fusion.Result{f.final.result}
	seenBefore := func(r *fusion.Result) bool {
		return slices.ContainsFunc(seen, func(e *fusion.Result) bool { return fusion.SameClusters(r, e) })
	}
	for rounds < fusion.SettleRounds {
		m := f.final
		t0 := time.Now()
		r := fusion.Reassociate(f.placed, m.result, m.opt, f.model.frames, radius, o.minCluster)
		poses := m.opt.Graph.Poses
		var optimized *fusedMap // the map retrack optimized already, if it moved maps
		// Association settled, or came back to clusters it had left:
		// relocate single maps, else a robot's end maps.
		same := fusion.SameClusters(r, m.result)
		if cycled := !same && seenBefore(r); cycled || same {
			rel := fusion.Relocate(f.placed, m.result, m.opt, f.model.frames, f.model.tol, radius, o.minCluster)
			if rel.Maps == 0 {
				rel = fusion.RelocateEnds(f.placed, m.result, m.opt, f.model.frames, f.model.tol, radius, o.minCluster)
			}
			if rel.Maps == 0 {
				rel = fusion.RealignSplit(f.placed, m.result, m.opt, f.model.frames, f.model.tol, radius, o.minCluster)
				inHalves += rel.Maps
			}
			if rel.Maps == 0 {
				better, again, err := o.retrack(ctx, f, radius)
				if err != nil {
					return err
				}
				if better != nil {
					rel, optimized = better, again
					retracked += rel.Maps
				}
			}
			if rel.Maps == 0 {
				how = "until nothing changed"
				if cycled {
					how = "until it came back to clusters it had left"
				}
				break
			}
			r, poses, moved = rel.Result, rel.Poses, moved+rel.Maps
		}
		if seenBefore(r) {
			how = "until it came back to clusters it had left"
			break
		}
		seen = append(seen, r)
		r.Method, r.Seconds = m.result.Method, m.result.Seconds+time.Since(t0).Seconds()
		again := optimized
		if again == nil {
			var err error
			if again, err = o.newFusedMapFrom(ctx, f.placed, poses, r, f.model, io.Discard); err != nil {
				return err
			}
		}
		if again.opt == nil {
			how = "then the optimizer could not run, so the last optimized map stands"
			break
		}
		again.seconds += m.seconds
		f.final, f.byRecord[1] = again, again
		rounds++
	}
	if what != "" {
		what = "(" + what + ") "
	}
	f.realigned += inHalves
	relocated := cmdline.Plural(moved, "map") + " relocated"
	var which []string
	if inHalves > 0 {
		which = append(which, fmt.Sprintf("%d of them as half a robot's maps", inHalves))
	}
	if retracked > 0 {
		which = append(which, fmt.Sprintf("%d placed again along their robot's path", retracked))
	}
	if len(which) > 0 {
		relocated += " (" + strings.Join(which, ", ") + ")"
	}
	fmt.Fprintf(stderr, "settle   %sassociated again within %.2f m (%.3g tolerances) and optimized, %s: %s %s, %d clusters → %d\n",
		what, radius, fusion.SettleRadius, relocated, cmdline.Plural(rounds, "round"), how, start, f.final.result.Clusters)
	return nil
}

// joinRobots places the robots whose maps f optimized apart in one frame
// where those maps align (fusion.JoinFrames), then associates f's map
// again there and optimizes it: one map, where the robots shared a
// space. It returns nil when nothing joins or the optimizer cannot run.
func (o *fuseOptions) joinRobots(ctx context.Context, f *firstMap, stderr io.Writer) (*firstMap, error) {
	m := f.final
	j, err := fusion.JoinFrames(ctx, f.placed, m.result, m.opt, f.model.frames, f.model.tol)
	if err != nil || j == nil {
		return nil, err
	}
	placed := *f.placed
	placed.Poses = j.Poses
	model := f.model
	model.frames = j.Frames
	t0 := time.Now()
	r := fusion.Reassociate(&placed, m.result, j.Optimized, model.frames, model.tol, o.minCluster)
	r.Method, r.Seconds = m.result.Method, m.result.Seconds+time.Since(t0).Seconds()
	fmt.Fprintf(stderr, "join     %d maps optimized apart placed in %s by aligning their landmarks; associated again there, within %.2f m: %d clusters → %d\n",
		j.Pieces, cmdline.Plural(j.Groups, "frame"), model.tol, m.result.Clusters, r.Clusters)
	// The optimizer starts where the maps optimized apart were, moved by
	// the join: nearer the solution than the odometry.
	again, err := o.newFusedMapFrom(ctx, &placed, j.Optimized.Graph.Poses, r, model, stderr)
	if err != nil {
		return nil, err
	}
	if again.opt == nil {
		fmt.Fprintf(stderr, "warning: -join: the joined map was not optimized (above), so the robots stay apart as the association left them\n")
		return nil, nil
	}
	again.seconds += m.seconds
	return &firstMap{final: again, byRecord: map[int]*fusedMap{0: f.byRecord[0], 1: again}, placed: &placed, model: model, realigned: f.realigned}, nil
}

// methodPaths scores against ref the trajectory each method's own map
// gives when optimized (optimizing the maps byRecord lacks): an
// association judged by where it puts the robot, with no true
// association needed. Without a timed trajectory and reference positions
// it does nothing.
func (o *fuseOptions) methodPaths(ctx context.Context, s *localmap.Set, model mapModel, ref []localmap.Fix, byRecord map[int]*fusedMap, recs []fuseRecord, results []*fusion.Result, stderr io.Writer) error {
	if ref == nil || s.Trajectory == nil {
		return nil
	}
	odo, _, ok := fusion.CompareReference(s.Trajectory, s.TrajectoryTimes, ref)
	if !ok {
		return nil
	}
	for k, r := range results {
		recs[k].OdometryPathError = &odo
		if recs[k].Skipped != "" {
			continue
		}
		m := byRecord[k]
		if m == nil {
			var err error
			if m, err = o.newFusedMap(ctx, s, constraining(r, model), model, stderr); err != nil {
				return err
			}
		}
		if m.opt == nil {
			continue
		}
		if e, _, ok := fusion.CompareReference(fusion.MoveTrajectory(s, m.opt.Graph.Poses), s.TrajectoryTimes, ref); ok {
			recs[k].OptimizedPathError = &e
		}
	}
	return nil
}

// optimization is the written map in the optimized frame.
type optimization struct {
	set   *localmap.Set // the maps at the optimized poses
	fused []fusion.Landmark
	path  []localmap.Pose // the trajectory moved with its maps
}

// addOptimized adds the optimized map m's poses, landmarks, trajectory
// and figure to files, every method's DN, PP and P̄ in its frame (scored:
// the poses are odometry) and the trajectories' errors against ref to
// recs.
func (o *fuseOptions) addOptimized(files map[string][]byte, s *localmap.Set, scored bool, m *fusedMap, ref []localmap.Fix, recs []fuseRecord, results []*fusion.Result, stderr io.Writer) error {
	res := m.opt
	opt := &optimization{path: fusion.MoveTrajectory(s, res.Graph.Poses)}
	at := *s
	at.Poses = res.Graph.Poses
	opt.set = &at
	for _, l := range m.fused {
		l.X, l.Y = res.Graph.Landmarks[l.Cluster][0], res.Graph.Landmarks[l.Cluster][1]
		opt.fused = append(opt.fused, l)
	}
	for k := range recs {
		recs[k].OptimizeSeconds = &m.seconds
		if scored && recs[k].Skipped == "" {
			sc := fusion.Score(opt.set, results[k], o.dnDistance)
			recs[k].Optimized = &frameScores{DN: sc.DN, PP: sc.PP, PBar: sc.PBar}
		}
	}
	moved := o.comparePaths(s, opt, ref, recs, stderr)
	if err := addOptimizedFiles(files, opt); err != nil {
		return err
	}
	return addOptimizedFigure(files, opt, m.result, moved, o.dnDistance)
}

// comparePaths prints the odometry's (methodPaths measured it into recs)
// and the optimized trajectory's errors against ref, and returns ref moved
// into the optimized frame.
func (o *fuseOptions) comparePaths(s *localmap.Set, opt *optimization, ref []localmap.Fix, recs []fuseRecord, stderr io.Writer) [][2]float64 {
	if ref == nil || opt.path == nil {
		return nil
	}
	odo := recs[0].OdometryPathError
	got, moved, ok := fusion.CompareReference(opt.path, s.TrajectoryTimes, ref)
	if odo == nil || !ok {
		fmt.Fprintf(stderr, "gps      fewer than 3 reference positions within the run: not compared\n")
		return nil
	}
	fmt.Fprintf(stderr, "gps      trajectory against %d reference positions (best rigid fit): odometry RMS %.2f m, median %.2f m, max %.2f m; optimized RMS %.2f m, median %.2f m, max %.2f m\n",
		got.Fixes, odo.RMS, odo.Median, odo.Max, got.RMS, got.Median, got.Max)
	return moved
}

// addOptimizedFiles writes the optimized poses, landmarks and trajectory.
func addOptimizedFiles(files map[string][]byte, opt *optimization) error {
	var p, l bytes.Buffer
	if err := localmap.WritePoses(&p, opt.set); err != nil {
		return err
	}
	if err := fusion.WriteLandmarks(&l, opt.set, opt.fused); err != nil {
		return err
	}
	files["optimized-poses.csv"], files["optimized-landmarks.csv"] = p.Bytes(), l.Bytes()
	if opt.path != nil {
		var t bytes.Buffer
		f := func(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }
		t.WriteString("time,x,y,theta\n")
		for i, q := range opt.path {
			t.WriteString(f(opt.set.TrajectoryTimes[i]) + "," + f(q.X) + "," + f(q.Y) + "," + strconv.FormatFloat(q.Theta, 'f', 6, 64) + "\n")
		}
		files["optimized-trajectory.csv"] = t.Bytes()
	}
	return nil
}

// addOptimizedFigure draws the optimized map: the trajectory moved with
// its maps, the reference positions (GPS), the observations placed by the
// optimized poses, the optimized landmarks, and wrong pairs (with a
// truth) or pairs farther apart than dnDistance in this frame.
func addOptimizedFigure(files map[string][]byte, opt *optimization, r *fusion.Result, ref [][2]float64, dnDistance float64) error {
	s := opt.set
	m := compare.FusionMap{Title: fmt.Sprintf("%s, optimized: %d landmarks from %d maps", r.Method, len(opt.fused), len(s.Maps)),
		Observations: fusion.Positions(s), Truth: fusion.TruthLabels(s), TrajectoryLabel: "trajectory (optimized)",
		Reference: ref, ReferenceLabel: "reference positions, GPS (rigidly fitted)"}
	for _, p := range opt.path {
		m.Trajectory = append(m.Trajectory, [2]float64{p.X, p.Y})
	}
	for _, l := range opt.fused {
		m.Fused = append(m.Fused, [2]float64{l.X, l.Y})
	}
	if m.Truth != nil {
		m.Wrong = fusion.Wrong(s, r, 20000)
	} else {
		m.Far = fusion.Negatives(s, r, dnDistance, 20000)
		m.FarLabel = fmt.Sprintf("pairs over %g m apart after optimization", dnDistance)
	}
	f, err := compare.FusionMapFigure("optimized-map", m)
	if err != nil {
		return err
	}
	cmdline.AddFigures(files, []compare.Figure{f})
	return nil
}

// retrack is the placement of one robot's maps again along its path
// (fusion.Retracked) that, optimized from there, costs least, and that
// map optimized, when it costs less than f's final map by one outlier's
// cost (both counting the observations in no cluster as outliers); nil
// otherwise.
func (o *fuseOptions) retrack(ctx context.Context, f *firstMap, radius float64) (*fusion.Relocated, *fusedMap, error) {
	m := f.final
	best := m.opt.CostCountingLone(f.placed) - fusion.OutlierCost
	var out *fusion.Relocated
	var optimized *fusedMap
	for _, rel := range fusion.Retracked(f.placed, m.result, m.opt, f.model.frames, f.model.tol, radius, o.minCluster) {
		again, err := o.newFusedMapFrom(ctx, f.placed, rel.Poses, rel.Result, f.model, io.Discard)
		if err != nil {
			return nil, nil, err
		}
		if again.opt == nil {
			continue
		}
		if cost := again.opt.CostCountingLone(f.placed); cost < best {
			best, out, optimized = cost, rel, again
		}
	}
	return out, optimized, nil
}
