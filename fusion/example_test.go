package fusion_test

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/fusion"
	"github.com/clearmatch/clearmatch/localmap"
)

// A simulated run cut into 3 s local maps, associated pairwise, fused
// with CLEAR and scored against the truth the simulator keeps.
func Example() {
	log, _ := localmap.Simulate(localmap.SimConfig{Seed: 8})
	maps, _ := localmap.FromLog(log, localmap.LogOptions{Motion: localmap.Unicycle{}, Window: 3})
	ctx := context.Background()
	assoc, err := fusion.Associate(ctx, maps, fusion.AssociateOptions{})
	if err != nil {
		panic(err)
	}
	p, _ := fusion.Problem(maps, assoc)
	r, err := fusion.Run(ctx, "clear", p, fusion.Options{})
	if err != nil {
		panic(err)
	}
	sc := fusion.Score(maps, r, fusion.DefaultDNDistance)
	fmt.Printf("%d maps, %d landmarks, %d fused; precision %.3f\n", len(maps.Maps), maps.Landmarks(), len(fusion.Fuse(maps, r)), *sc.Precision)
	// Output: 40 maps, 898 landmarks, 131 fused; precision 1.000
}

// The fused map of a simulated circling run optimized: the trajectory
// moved with its maps is compared with the true path the simulator keeps.
func ExampleOptimize() {
	log, _ := localmap.Simulate(localmap.SimConfig{Seed: 2, Duration: 300, Speed: 0.5, Radius: 5})
	maps, _ := localmap.FromLog(log, localmap.LogOptions{Motion: localmap.Unicycle{}, Window: 15})
	ctx := context.Background()
	assoc, _ := fusion.Associate(ctx, maps, fusion.AssociateOptions{})
	p, _ := fusion.Problem(maps, assoc)
	r, _ := fusion.Run(ctx, "clear", p, fusion.Options{})
	g, _ := fusion.NewPoseGraph(maps, r, fusion.Fuse(maps, r), fusion.EstimateNoise(maps, assoc))
	res, err := fusion.Optimize(ctx, g, fusion.OptimizeOptions{})
	if err != nil {
		panic(err)
	}
	before, _, _ := fusion.CompareReference(maps.Trajectory, maps.TrajectoryTimes, log.Reference)
	after, _, _ := fusion.CompareReference(fusion.MoveTrajectory(maps, res.Graph.Poses), maps.TrajectoryTimes, log.Reference)
	fmt.Printf("%d maps in %d component; the path off the truth by %.2f m RMS, %.2f m optimized\n", len(maps.Maps), res.Components, before.RMS, after.RMS)
	// Output: 20 maps in 1 component; the path off the truth by 0.17 m RMS, 0.01 m optimized
}
