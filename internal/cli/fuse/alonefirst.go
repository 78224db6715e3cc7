package fuse

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/clearmatch/clearmatch/fusion"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/internal/pool"
	"github.com/clearmatch/clearmatch/localmap"
)

// chooseAloneFirst makes a second map of several tracked robots, from
// each robot's map as fuse makes it alone (robotsAlone), and keeps it
// when it holds fewer landmarks than team's: a robot's map is made best
// alone (its own tolerance, settled apart from the others' wrong maps),
// and where the team's association ties robots together that their
// maps' join cannot, or other robots' maps mend one robot's, the team's
// map holds fewer (docs/decisions.md, "Each robot's map first"). A kept
// map replaces team's first map and its record.
func (o *fuseOptions) chooseAloneFirst(ctx context.Context, s *localmap.Set, team *fusedRun, pr *cmdline.Progress, stderr io.Writer) error {
	var log bytes.Buffer
	joined, robots, err := o.robotsAlone(ctx, s, team.first.final.result.Method, team.first.model, pr, &log)
	if err != nil {
		return err
	}
	if _, err := io.Copy(stderr, &log); err != nil {
		return err
	}
	if joined == nil {
		fmt.Fprintf(stderr, "choose   the robots' maps made alone did not join: the team's map kept\n")
		return nil
	}
	clusters := [2]int{team.first.final.result.Clusters, joined.final.result.Clusters}
	fewer := clusters[1] < clusters[0]
	kept := "the team's kept (fewer landmarks or as many)"
	if fewer {
		kept = "the robots' joined map kept (fewer landmarks)"
	}
	fmt.Fprintf(stderr, "choose   the team's map and the %d robots' maps made alone and joined: %d and %d landmarks; %s\n",
		robots, clusters[0], clusters[1], kept)
	if fewer {
		joined.byRecord[0] = team.first.byRecord[0]
		team.first = joined
		o.rescore(team)
	}
	return nil
}

// robotsAlone is the map of s's robots made each alone (chooseTolerance
// and leaveAmbiguous on its maps, silently), placed in one frame where
// their maps align (joinRobots) and settled, on model's noise and
// tolerance, its clusters named method; and the number of robots. It is
// nil when a robot's map or the robots' maps together cannot be
// optimized, or nothing joins; what it does is said on stderr.
func (o *fuseOptions) robotsAlone(ctx context.Context, s *localmap.Set, method string, model mapModel, pr *cmdline.Progress, stderr io.Writer) (*firstMap, int, error) {
	robot, _ := fusion.RobotNumbers(s)
	groups := fusion.GroupMaps(robot)
	obsMap := fusion.ObservationMaps(s)
	// The robots' maps are made side by side, each from its own maps
	// alone, quietly but for one progress line; each writes its own slot.
	quiet := *o
	quiet.assoc.Progress = nil
	// Each robot's map is what the join aligns and the choice counts:
	// left out there, contested observations and runs of maps change
	// which map is kept for the worse (docs/decisions.md, "Leaving
	// contested observations out", "Doubting runs of maps"); the map
	// kept is doubted whole.
	quiet.doubtMapsAlone = true
	silent := cmdline.NewProgress(io.Discard)
	runs := make([]*fusedRun, len(groups))
	obs := make([][]int, len(groups))
	err := pool.ForEach(ctx, len(groups), 0, pr.Stage("alone"), func(k int) error {
		var sub *localmap.Set
		sub, obs[k] = subSet(s, groups[k], obsMap)
		r, err := quiet.chooseTolerance(ctx, sub, silent, io.Discard)
		if err == nil {
			err = quiet.leaveAmbiguous(ctx, r, io.Discard)
		}
		runs[k] = r
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	made := make([]*firstMap, len(groups))
	for k, r := range runs {
		if r.first.final.opt == nil {
			return nil, 0, nil
		}
		made[k] = r.first
	}
	res, poses, realigned := joinedApart(groups, obs, made, len(obsMap), len(s.Maps))
	res.Method = method
	model.frames = robot // each robot its own frame group, numbered as groups
	placed := *s
	m, err := o.newFusedMapFrom(ctx, &placed, poses, res, model, io.Discard)
	if err != nil || m.opt == nil {
		return nil, 0, err
	}
	fmt.Fprintf(stderr, "alone    %d robots' maps made each alone (as fuse makes one robot's): %d landmarks\n", len(groups), res.Clusters)
	f := &firstMap{final: m, byRecord: map[int]*fusedMap{1: m}, placed: &placed, model: model, realigned: realigned}
	joined, err := o.joinRobots(ctx, f, stderr)
	if err != nil || joined == nil {
		return nil, 0, err
	}
	return joined, len(groups), o.settle(ctx, joined, "", stderr)
}
