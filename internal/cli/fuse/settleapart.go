package fuse

import (
	"context"
	"fmt"
	"io"
	"slices"

	"github.com/clearmatch/clearmatch/fusion"
	"github.com/clearmatch/clearmatch/localmap"
)

// settleApart settles each frame group of f's map (robots the
// association could not place together) as a map of its own, as settle
// settles a robot alone, then optimizes the groups' maps together from
// where they settled: settled as one, a round changes some robot's
// clusters nearly always, so the team's association seldom comes to rest
// and relocation, tried only then, seldom runs. f then holds the map.
func (o *fuseOptions) settleApart(ctx context.Context, f *firstMap, stderr io.Writer) error {
	groups := fusion.GroupMaps(f.model.frames)
	if len(groups) < 2 {
		return o.settle(ctx, f, "each robot apart", stderr)
	}
	obsMap := fusion.ObservationMaps(f.placed)
	cluster := make([]int, len(obsMap))
	poses := slices.Clone(f.final.opt.Graph.Poses)
	clusters, realigned := 0, 0
	for _, maps := range groups {
		g, obs, err := o.settleGroup(ctx, f, maps, obsMap)
		if err != nil || g == nil {
			if err == nil { // the optimizer could not run: settle as one
				err = o.settle(ctx, f, "each robot apart", stderr)
			}
			return err
		}
		for k, n := range obs {
			cluster[n] = -1
			if c := g.final.result.Cluster[k]; c >= 0 {
				cluster[n] = clusters + c
			}
		}
		for k, m := range maps {
			poses[m] = g.final.opt.Graph.Poses[k]
		}
		clusters, realigned = clusters+g.final.result.Clusters, realigned+g.realigned
	}
	r := &fusion.Result{Method: f.final.result.Method, Seconds: f.final.result.Seconds, Cluster: cluster, Clusters: clusters}
	again, err := o.newFusedMapFrom(ctx, f.placed, poses, r, f.model, io.Discard)
	if err != nil || again.opt == nil {
		return err
	}
	fmt.Fprintf(stderr, "settle   (each of %d frame groups apart) associated again within %.2f m (%.3g tolerances) and optimized: %d clusters → %d\n",
		len(groups), fusion.SettleRadius*f.model.tol, fusion.SettleRadius, f.final.result.Clusters, clusters)
	again.seconds += f.final.seconds
	f.final, f.byRecord[1] = again, again
	f.realigned += realigned
	return nil
}

// settleGroup settles the maps maps of f's map (obsMap: each
// observation's map) as a map of their own, optimized from where f's
// optimizer left them: the group's map settled, and the numbers of its
// observations in f's. It returns nil where the optimizer cannot run.
func (o *fuseOptions) settleGroup(ctx context.Context, f *firstMap, maps, obsMap []int) (*firstMap, []int, error) {
	sub, obs := subSet(f.placed, maps, obsMap)
	at := make([]localmap.Pose, len(maps))
	for k, m := range maps {
		at[k] = f.final.opt.Graph.Poses[m]
	}
	model := f.model
	model.frames = nil
	m, err := o.newFusedMapFrom(ctx, sub, at, subResult(f.final.result, obs), model, io.Discard)
	if err != nil || m.opt == nil {
		return nil, nil, err
	}
	g := &firstMap{final: m, byRecord: map[int]*fusedMap{1: m}, placed: sub, model: model}
	return g, obs, o.settle(ctx, g, "", io.Discard)
}

// subResult is r on the observations obs alone, its clusters numbered
// in order of first observation.
func subResult(r *fusion.Result, obs []int) *fusion.Result {
	out := &fusion.Result{Method: r.Method, Seconds: r.Seconds, Cluster: make([]int, len(obs))}
	ids := map[int]int{}
	for k, g := range obs {
		out.Cluster[k] = -1
		if c := r.Cluster[g]; c >= 0 {
			if _, ok := ids[c]; !ok {
				ids[c] = len(ids)
			}
			out.Cluster[k] = ids[c]
		}
	}
	out.Clusters = len(ids)
	return out
}

// subSet is s's maps maps alone (with their poses, robots and times)
// and the numbers of their observations in s's (obsMap: each of s's
// observations' map).
func subSet(s *localmap.Set, maps []int, obsMap []int) (*localmap.Set, []int) {
	in := map[int]int{}
	sub := &localmap.Set{ThreeD: s.ThreeD, MergeRadius: s.MergeRadius}
	for k, m := range maps {
		in[m] = k
		sub.Maps = append(sub.Maps, s.Maps[m])
		if s.Poses != nil {
			sub.Poses = append(sub.Poses, s.Poses[m])
		}
		if s.Robots != nil {
			sub.Robots = append(sub.Robots, s.Robots[m])
		}
		if len(s.Times) == len(s.Maps) {
			sub.Times = append(sub.Times, s.Times[m])
		}
	}
	var obs []int
	for g, m := range obsMap {
		if _, ok := in[m]; ok {
			obs = append(obs, g)
		}
	}
	return sub, obs
}
