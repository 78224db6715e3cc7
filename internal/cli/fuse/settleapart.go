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
	made, obs := make([]*firstMap, len(groups)), make([][]int, len(groups))
	for k, maps := range groups {
		g, gObs, err := o.settleGroup(ctx, f, maps, obsMap)
		if err != nil || g == nil {
			if err == nil { // the optimizer could not run: settle as one
				err = o.settle(ctx, f, "each robot apart", stderr)
			}
			return err
		}
		made[k], obs[k] = g, gObs
	}
	r, poses, realigned := joinedApart(groups, obs, made, len(obsMap), len(f.placed.Maps))
	r.Method, r.Seconds = f.final.result.Method, f.final.result.Seconds
	again, err := o.newFusedMapFrom(ctx, f.placed, poses, r, f.model, io.Discard)
	if err != nil || again.opt == nil {
		return err
	}
	fmt.Fprintf(stderr, "settle   (each of %d frame groups apart) associated again within %.2f m (%.3g tolerances) and optimized: %d clusters → %d\n",
		len(groups), fusion.SettleRadius*f.model.tol, fusion.SettleRadius, f.final.result.Clusters, r.Clusters)
	again.seconds += f.final.seconds
	f.final, f.byRecord[1] = again, again
	f.realigned += realigned
	return nil
}

// joinedApart is the maps of groups, made apart (made[k] the map of
// groups[k]'s maps, obs[k] their observations' numbers among
// observations; maps maps in all), as one map: each group's clusters
// numbered after those of the groups before it, each map at its group's
// optimized pose; and the maps realigned in all.
func joinedApart(groups, obs [][]int, made []*firstMap, observations, maps int) (*fusion.Result, []localmap.Pose, int) {
	r := &fusion.Result{Cluster: slices.Repeat([]int{-1}, observations)}
	poses := make([]localmap.Pose, maps)
	realigned := 0
	for k, group := range groups {
		m := made[k].final
		for i, n := range obs[k] {
			if c := m.result.Cluster[i]; c >= 0 {
				r.Cluster[n] = r.Clusters + c
			}
		}
		for i, g := range group {
			poses[g] = m.opt.Graph.Poses[i]
		}
		r.Clusters, realigned = r.Clusters+m.result.Clusters, realigned+made[k].realigned
	}
	return r, poses, realigned
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
