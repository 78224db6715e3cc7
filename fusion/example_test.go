package fusion_test

import (
	"context"
	"fmt"
	"math"

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

// Three robots ten minutes each in a lab-sized room, each log in its own
// odometry frame: no pair of maps across two robots places them, so each
// robot's map is optimized apart; those maps, associated again where the
// optimizer put their landmarks, align and join the robots in one frame.
func ExampleJoinFrames() {
	logs, _ := localmap.SimulateTeam(localmap.SimConfig{Seed: 3, Duration: 600, Speed: 0.15, Range: 5, FieldOfView: math.Pi / 3,
		Miss: 0.9, Spurious: 1e-9, RangeNoise: 0.25, BearingNoise: 0.05, TurnNoise: 0.05, SpeedNoise: 0.05,
		Arena: [2]float64{5, 7}, Landmarks: 15, LandmarkGap: 1.2}, 3)
	var sets []*localmap.Set
	for _, l := range logs {
		s, _ := localmap.FromLog(l, localmap.LogOptions{Motion: localmap.Unicycle{}, Window: 30, MergeByTruth: true, SkipEmpty: true})
		sets = append(sets, s)
	}
	team, _ := localmap.Join([]string{"robot-1", "robot-2", "robot-3"}, sets)
	ctx := context.Background()
	assoc, _ := fusion.Associate(ctx, team, fusion.AssociateOptions{Track: true})
	placed := *team
	var frames []int
	var groups int
	placed.Poses, frames, groups = fusion.AlignRobots(team, assoc)
	p, _ := fusion.Problem(&placed, fusion.WithinGroups(assoc, frames))
	r, _ := fusion.Run(ctx, "clear", p, fusion.Options{})
	noise := fusion.EstimateNoise(&placed, assoc)
	optimize := func(r *fusion.Result) *fusion.Optimized {
		g, _ := fusion.NewPoseGraph(&placed, r, fusion.Fuse(&placed, r), noise)
		opt, _ := fusion.Optimize(ctx, g, fusion.OptimizeOptions{})
		return opt
	}
	r = fusion.WithinFrames(&placed, fusion.Constraining(r), frames)
	r = fusion.Reassociate(&placed, r, optimize(r), frames, assoc.Tolerance, 1)
	j, _ := fusion.JoinFrames(ctx, &placed, r, optimize(r), frames, assoc.Tolerance)
	fmt.Printf("robots placed by their map pairs in %d frames, by their maps in %d\n", groups, j.Groups)
	// Output: robots placed by their map pairs in 3 frames, by their maps in 1
}

// One robot's fourteen maps of a room of ten landmarks, each map at the
// origin seeing five of them, but the optimizer left the last seven
// turned by 0.5 rad about (2, 2) in clusters of their own: the robot's
// map twice. RealignSplit moves them back, and the observations of each
// landmark come out in one cluster.
func ExampleRealignSplit() {
	world := [][2]float64{{1.6, 0.8}, {3.3, 0.4}, {2.7, 1.8}, {0.3, 2.5}, {0.3, 0.5}, {2.1, 4.1}, {4.9, 0.2}, {4.3, 1.4}, {1.6, 2.9}, {4, 3.5}}
	turn := localmap.Pose{Theta: 0.5}
	turn.X, turn.Y = 2-(math.Cos(0.5)*2-math.Sin(0.5)*2), 2-(math.Sin(0.5)*2+math.Cos(0.5)*2)
	s := &localmap.Set{}
	r := &fusion.Result{Clusters: 2 * len(world)}
	g := &fusion.PoseGraph{Poses: make([]localmap.Pose, 14), Landmarks: make([][2]float64, 2*len(world))}
	for id, p := range world {
		g.Landmarks[id] = p
		g.Landmarks[len(world)+id][0], g.Landmarks[len(world)+id][1] = turn.Apply(p[0], p[1])
	}
	for k := range 14 {
		m := localmap.Map{Name: fmt.Sprint(k)}
		for j := range 5 {
			id := (3*k + 2*j) % len(world)
			m.Landmarks = append(m.Landmarks, localmap.Landmark{Name: fmt.Sprint(id), X: world[id][0], Y: world[id][1]})
			c := id
			if k >= 7 {
				c, g.Poses[k] = len(world)+id, turn
			}
			r.Cluster = append(r.Cluster, c)
		}
		s.Maps = append(s.Maps, m)
	}
	opt := &fusion.Optimized{Graph: g, Component: make([]int, 14)}
	moved := fusion.RealignSplit(s, r, opt, nil, 0.4, 0.6, 2)
	fmt.Printf("%d maps moved; %d clusters → %d\n", moved.Maps, r.Clusters, moved.Result.Clusters)
	// Output: 7 maps moved; 20 clusters → 10
}

// A map seeing two landmarks of a 2 m grid fits as well one spacing
// along; its odometry edge, 1.5 m uncertain, allows both places, so
// which landmarks it saw is not known and its observations leave their
// clusters. With an edge of 0.3 m, the other placement is ruled out.
func ExampleLeaveAmbiguous() {
	grid := [][2]float64{{0, 0}, {2, 0}, {4, 0}, {0, 2}, {2, 2}, {4, 2}}
	for _, sigma := range []float64{1.5, 0.3} {
		s := &localmap.Set{}
		r := &fusion.Result{Clusters: len(grid)}
		for k, ids := range [][]int{{0, 1, 2, 3, 4, 5}, {0, 1}} {
			m := localmap.Map{Name: fmt.Sprint(k)}
			for _, id := range ids {
				m.Landmarks = append(m.Landmarks, localmap.Landmark{Name: fmt.Sprint(id), X: grid[id][0], Y: grid[id][1]})
				r.Cluster = append(r.Cluster, id)
			}
			s.Maps = append(s.Maps, m)
		}
		g := &fusion.PoseGraph{Poses: make([]localmap.Pose, 2), Landmarks: grid,
			Odometry: []fusion.OdometryEdge{{From: 0, To: 1, SigmaXY: sigma, SigmaTheta: 0.1}}}
		d := fusion.LeaveAmbiguous(s, r, &fusion.Optimized{Graph: g, Component: make([]int, 2)}, nil, fusion.Doubt{Tol: 0.4, Radius: 0.4, MinCluster: 1})
		fmt.Printf("odometry %.1f m: %d observations left out\n", sigma, d.Observations)
	}
	// Output:
	// odometry 1.5 m: 2 observations left out
	// odometry 0.3 m: 0 observations left out
}

// An observation 0.8 m from its landmark towards another 2 m away lies
// 0.67 of its distance to the other from its own, beyond ContestedShare:
// with Contested, which of the two it saw is not known and it leaves its
// cluster. At 0.5 m it stays.
func ExampleDoubt() {
	marks := [][2]float64{{0, 0}, {2, 0}, {0, 2}}
	for _, shift := range []float64{0.8, 0.5} {
		s := &localmap.Set{}
		r := &fusion.Result{Clusters: len(marks)}
		for k := range 3 {
			m := localmap.Map{Name: fmt.Sprint(k)}
			for id, p := range marks {
				if k == 2 && id == 1 {
					continue // the third map does not see the other landmark
				}
				x := p[0]
				if k == 2 && id == 0 {
					x += shift
				}
				m.Landmarks = append(m.Landmarks, localmap.Landmark{Name: fmt.Sprint(id), X: x, Y: p[1]})
				r.Cluster = append(r.Cluster, id)
			}
			s.Maps = append(s.Maps, m)
		}
		g := &fusion.PoseGraph{Poses: make([]localmap.Pose, 3), Landmarks: marks}
		d := fusion.LeaveAmbiguous(s, r, &fusion.Optimized{Graph: g, Component: make([]int, 3)}, nil,
			fusion.Doubt{Tol: 0.4, Radius: 0.4, MinCluster: 1, Contested: true})
		fmt.Printf("%.1f m towards the other: %d left out\n", shift, d.Contested)
	}
	// Output:
	// 0.8 m towards the other: 1 left out
	// 0.5 m towards the other: 0 left out
}
