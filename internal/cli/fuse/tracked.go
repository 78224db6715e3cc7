package fuse

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/fusion"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/localmap"
)

// fusedRun is one association of the maps and what is fused from it: the
// association, its time, the maps (robots placed in one frame by it) and
// the problem the methods solve, their records and results, and the
// first method's map.
type fusedRun struct {
	a            *fusion.Association
	assocSeconds float64
	s            *localmap.Set
	p            *clear.Problem
	recs         []fuseRecord
	results      []*fusion.Result
	first        *firstMap
}

// fuseTracked is fuseAt with fuse's options and methods. For tracked
// maps whose tolerance was not given (-tolerance 0) the first method's
// map is chosen (chooseTolerance, then for several robots
// chooseAloneFirst), its ambiguous observations are left out
// (leaveAmbiguous), and only then the other methods run, on its
// association.
func (o *fuseOptions) fuseTracked(ctx context.Context, s *localmap.Set, pr *cmdline.Progress, stderr io.Writer) (*fusedRun, error) {
	if !o.tracks(s) || !o.reassociate || o.assoc.Tolerance != 0 {
		r, err := o.fuseAt(ctx, s, o.assoc, len(o.methodList), pr, stderr)
		if err != nil || !o.tracks(s) {
			return r, err
		}
		return r, o.leaveAmbiguous(ctx, r, stderr)
	}
	r, err := o.chooseTolerance(ctx, s, pr, stderr)
	if err != nil {
		return nil, err
	}
	if o.aloneFirst && o.join && robotCount(s) > 1 {
		if err := o.chooseAloneFirst(ctx, s, r, pr, stderr); err != nil {
			return nil, err
		}
	}
	if err := o.leaveAmbiguous(ctx, r, stderr); err != nil {
		return nil, err
	}
	recs, results, err := o.runMethods(ctx, r.s, r.p, pr, 1, len(o.methodList))
	if err != nil {
		return nil, err
	}
	r.recs, r.results = append(r.recs, recs...), append(r.results, results...)
	return r, nil
}

// chooseTolerance fuses s with the first method at the automatic
// tolerance and at fusion.WiderTolerance times it and returns the run
// keptMap picks; only its run speaks on stderr, then a line says which.
func (o *fuseOptions) chooseTolerance(ctx context.Context, s *localmap.Set, pr *cmdline.Progress, stderr io.Writer) (*fusedRun, error) {
	var logs [2]bytes.Buffer
	runs := [2]*fusedRun{}
	assoc := o.assoc
	for k := range runs {
		r, err := o.fuseAt(ctx, s, assoc, 1, pr, &logs[k])
		if err != nil {
			return nil, err
		}
		runs[k] = r
		assoc.Tolerance = fusion.WiderTolerance * r.a.Tolerance
	}
	clusters := [2]int{runs[0].first.final.result.Clusters, runs[1].first.final.result.Clusters}
	realigned := [2]int{runs[0].first.realigned, runs[1].first.realigned}
	kept := keptMap(clusters, realigned)
	if _, err := io.Copy(stderr, &logs[kept]); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "choose   tolerance %.2f m and %.3g times it, %.2f m: %d and %d landmarks; the map of %.2f m kept (fewer landmarks; on a tie fewer maps realigned, then the first)\n",
		runs[0].a.Tolerance, fusion.WiderTolerance, runs[1].a.Tolerance, clusters[0], clusters[1], runs[kept].a.Tolerance)
	return runs[kept], nil
}

// fuseAt associates s with assoc's options and fuses from it: the
// clusters of the first methods of o.methodList (methods of them), then
// the first method's map (fuseFirst). What it does is said on stderr.
func (o *fuseOptions) fuseAt(ctx context.Context, s *localmap.Set, assoc fusion.AssociateOptions, methods int, pr *cmdline.Progress, stderr io.Writer) (*fusedRun, error) {
	t0 := time.Now()
	a, err := fusion.Associate(ctx, s, assoc)
	if err != nil {
		return nil, err
	}
	assocSeconds := time.Since(t0).Seconds()
	fmt.Fprintf(stderr, "maps     %d local maps, %d landmarks; %d pairings between %d map pairs (tolerance %.2f m), %.2fs\n",
		len(s.Maps), s.Landmarks(), len(a.Pairings), len(a.Motions), a.Tolerance, assocSeconds)
	switch {
	case a.Drift > 0 && a.NeighbourPairs > 0:
		fmt.Fprintf(stderr, "gate     pairings within the poses' prediction: drift %.4f m and %.5f rad per metre of path, read from %d alignments of neighbouring maps (%d associated map pairs were too few)\n", a.Drift, a.TurnDrift, a.NeighbourPairs, a.DriftPairs)
	case a.Drift > 0:
		fmt.Fprintf(stderr, "gate     pairings within the poses' prediction: drift %.4f m and %.5f rad per metre of path\n", a.Drift, a.TurnDrift)
	case s.Poses != nil && assoc.Drift == 0:
		fmt.Fprintf(stderr, "gate     off: %d associated map pairs and %d alignments of neighbouring maps to read the odometry's drift from, %d needed (-drift sets it)\n", a.DriftPairs, a.NeighbourPairs, fusion.MinDriftPairs)
	}
	switch {
	case o.tracks(s):
		fmt.Fprintf(stderr, "track    %s associated by tracking each robot's maps in order\n", cmdline.Plural(a.TrackedPairs, "map pair"))
	case assoc.Track:
		fmt.Fprintf(stderr, "warning: -track: the maps have no poses to track them by (give -poses), so nothing was tracked\n")
	}
	model := mapModel{tol: a.Tolerance, consistent: a.Drift > 0}
	input := a // the pairings every method sees
	if s.Robots != nil {
		// Each robot's poses are in its own frame: place them in one by
		// the association. Poses within a robot keep their relations, so
		// the odometry, the gate and the noise read from it are unchanged.
		aligned := *s
		var groups int
		aligned.Poses, model.frames, groups = fusion.AlignRobots(s, a)
		s = &aligned
		if groups > 1 {
			// Pairings between robots the association could not place
			// together are chance as often as not: no method sees them.
			input = fusion.WithinGroups(a, model.frames)
		}
		fmt.Fprintf(stderr, "robots   %s, each in its own odometry frame, placed in one by the association (%s)\n", cmdline.Plural(robotCount(s), "robot"), cmdline.Plural(groups, "group"))
	}
	model.noise = fusion.EstimateNoise(s, a)
	if s.Poses == nil {
		model.noise.Drift = 0 // poses placed by the association are no odometry
	}
	if o.tracks(s) {
		var err error
		if input, err = o.verifyLong(ctx, s, input, model, stderr); err != nil {
			return nil, err
		}
	}
	p, err := fusion.Problem(s, input)
	if err != nil {
		return nil, err
	}
	placed := s
	if s.Poses == nil {
		// Without poses the fused landmarks and map.g2o are placed by the
		// association's own motions; DN and PP stay unscored.
		est := *s
		var groups int
		est.Poses, groups = fusion.EstimatePoses(s, a)
		placed = &est
		fmt.Fprintf(stderr, "poses    none given: each map placed by the association's motions (%s)\n", cmdline.Plural(groups, "group"))
	}
	recs, results, err := o.runMethods(ctx, s, p, pr, 0, methods)
	if err != nil {
		return nil, err
	}
	first, err := o.fuseFirst(ctx, s, placed, model, &recs, &results, stderr)
	if err != nil {
		return nil, err
	}
	return &fusedRun{a: a, assocSeconds: assocSeconds, s: s, p: p, recs: recs, results: results, first: first}, nil
}

// keptMap is which of two maps of the same observations, of clusters
// landmarks, fuse writes: the one of fewer landmarks (where tracking lost
// a robot, its landmarks come out again in clusters of their own); on a
// tie the one settling moved fewer maps of as half a robot's (realigned;
// the maps by the split are left partly wrong), then the first.
func keptMap(clusters, realigned [2]int) int {
	if clusters[1] < clusters[0] || clusters[1] == clusters[0] && realigned[1] < realigned[0] {
		return 1
	}
	return 0
}

// leaveAmbiguous takes out of their clusters the observations of r's
// written map whose map, alone or (unless o.doubtMapsAlone) with one or
// two beside it, another placement the odometry allows explains as well,
// and those lying toward another landmark (unless o.doubtMapsAlone;
// fusion.LeaveAmbiguous), optimizes it again from where it was, and
// scores it again. After keptMap's choice: the landmarks it counts are
// the tracking's, not the doubt's.
func (o *fuseOptions) leaveAmbiguous(ctx context.Context, r *fusedRun, stderr io.Writer) error {
	f := r.first
	m := f.final
	if !o.doubt || f.byRecord[1] == nil || m.opt == nil {
		return nil // not associated again: nothing settled to doubt
	}
	t0 := time.Now()
	d := fusion.LeaveAmbiguous(f.placed, m.result, m.opt, f.model.frames, fusion.Doubt{Tol: f.model.tol, Radius: f.model.tol, MinCluster: o.minCluster, Runs: !o.doubtMapsAlone, Contested: !o.doubtMapsAlone})
	if d.Observations == 0 {
		fmt.Fprintf(stderr, "doubt    no map, alone or with one or two beside it, fits another place the odometry allows as well, no observation lies toward another landmark: every observation kept\n")
		return nil
	}
	d.Result.Method, d.Result.Seconds = m.result.Method, m.result.Seconds+time.Since(t0).Seconds()
	again, err := o.newFusedMapFrom(ctx, f.placed, m.opt.Graph.Poses, d.Result, f.model, io.Discard)
	if err != nil || again.opt == nil {
		return err
	}
	again.seconds += m.seconds
	f.final, f.byRecord[1] = again, again
	o.rescore(r)
	fmt.Fprintf(stderr, "doubt    %s of %s left out of their clusters: %d where their map, alone or with one or two beside it, fits another place the odometry allows as well, %d lying toward another landmark; %d clusters → %d\n",
		cmdline.Plural(d.Observations, "observation"), cmdline.Plural(d.Maps, "map"), d.Observations-d.Contested, d.Contested, m.result.Clusters, again.result.Clusters)
	return nil
}

// rescore makes r's second record and result (the map written) those
// of r.first.final, scored where r.first places the maps.
func (o *fuseOptions) rescore(r *fusedRun) {
	res := r.first.final.result
	rec := &r.recs[1]
	rec.Method, rec.Scores, rec.Seconds = res.Method, fusion.Score(r.first.placed, res, o.dnDistance), res.Seconds
	rec.Clusters, rec.FusedLandmarks = res.Clusters, res.Clusters
	r.results[1] = res
}
