package fusion

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// circleGraph is a robot circling through landmarks: true poses and
// landmarks, exact odometry and observations within 8 m, and starting
// values drifted as dead reckoning drifts (heading error growing along
// the path), the landmarks placed from the drifted poses.
func circleGraph(maps, marks int, odometry bool) (g *PoseGraph, truePoses []localmap.Pose, trueMarks [][2]float64) {
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < maps; k++ {
		a := 2 * math.Pi * float64(k) / float64(maps)
		truePoses = append(truePoses, localmap.Pose{X: 10 * math.Cos(a), Y: 10 * math.Sin(a), Theta: a + math.Pi/2})
	}
	for l := 0; l < marks; l++ {
		a, r := 2*math.Pi*rng.Float64(), 6+8*rng.Float64()
		trueMarks = append(trueMarks, [2]float64{r * math.Cos(a), r * math.Sin(a)})
	}
	g = &PoseGraph{LandmarkSigma: 0.1}
	for k, p := range truePoses {
		drift := localmap.Pose{Theta: 0.01 * float64(k)}
		g.Poses = append(g.Poses, compose(drift, p))
		if k > 0 && odometry {
			g.Odometry = append(g.Odometry, OdometryEdge{From: k - 1, To: k, Delta: truePoses[k-1].Between(p), SigmaXY: 0.05, SigmaTheta: 0.005})
		}
	}
	seen := make([]bool, marks)
	g.Landmarks = make([][2]float64, marks)
	for k, p := range truePoses {
		for l, m := range trueMarks {
			x, y := p.Inverse(m[0], m[1])
			if math.Hypot(x, y) > 8 {
				continue
			}
			g.Observations = append(g.Observations, Observation{Map: k, Landmark: l, X: x, Y: y})
			if !seen[l] {
				seen[l] = true
				g.Landmarks[l][0], g.Landmarks[l][1] = g.Poses[k].Apply(x, y)
			}
		}
	}
	return g, truePoses, trueMarks
}

func TestOptimizeRecoversTruth(t *testing.T) {
	for _, tc := range []struct {
		name        string
		maps, marks int
		odometry    bool
	}{
		{"odometry and landmarks", 24, 60, true},
		{"landmarks alone", 24, 60, false},
		{"many maps, few landmarks (the maps eliminated)", 200, 12, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, truePoses, trueMarks := circleGraph(tc.maps, tc.marks, tc.odometry)
			g.Poses[0] = truePoses[0] // the gauge
			res, err := Optimize(context.Background(), g, OptimizeOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Components != 1 || !(res.Cost < 1e-8*res.InitialCost) {
				t.Fatalf("components %d, cost %g from %g", res.Components, res.Cost, res.InitialCost)
			}
			for k, p := range res.Graph.Poses {
				if d := math.Hypot(p.X-truePoses[k].X, p.Y-truePoses[k].Y); d > 1e-6 || math.Abs(math.Remainder(p.Theta-truePoses[k].Theta, 2*math.Pi)) > 1e-6 {
					t.Fatalf("map %d at %+v, truly %+v", k, p, truePoses[k])
				}
			}
			for l, m := range res.Graph.Landmarks {
				if g.Landmarks[l] != ([2]float64{}) && math.Hypot(m[0]-trueMarks[l][0], m[1]-trueMarks[l][1]) > 1e-6 {
					t.Fatalf("landmark %d at %v, truly %v", l, m, trueMarks[l])
				}
			}
			if g.Poses[5] == res.Graph.Poses[5] {
				t.Fatal("the input graph was changed or nothing moved")
			}
		})
	}
}

// A wrong observation bends the map less with Huber's kernel than with
// least squares, and barely with GNC.
func TestOptimizeHuber(t *testing.T) {
	errAt := func(k Kernel, width float64) float64 {
		g, truePoses, _ := circleGraph(24, 60, true)
		g.Poses[0] = truePoses[0]
		g.Observations[10].X += 5
		res, err := Optimize(context.Background(), g, OptimizeOptions{Kernel: k, Width: width})
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for k, p := range res.Graph.Poses {
			worst = max(worst, math.Hypot(p.X-truePoses[k].X, p.Y-truePoses[k].Y))
		}
		return worst
	}
	gnc, huber, plain := errAt(GNC, 0), errAt(Huber, 0), errAt(Huber, 1e9)
	if !(huber < plain/2 && gnc < huber/10) {
		t.Fatalf("worst pose error %.4f m with GNC, %.4f m with Huber, %.4f m with least squares", gnc, huber, plain)
	}
}

func TestOptimizeComponents(t *testing.T) {
	g := &PoseGraph{LandmarkSigma: 0.1, Poses: make([]localmap.Pose, 4), Landmarks: make([][2]float64, 2),
		Observations: []Observation{{Map: 0, Landmark: 0, X: 1}, {Map: 1, Landmark: 0, X: 2}, {Map: 2, Landmark: 1, Y: 1}}}
	if c := g.components(); len(c) != 3 || len(c[0]) != 2 || c[1][0] != 2 || c[2][0] != 3 {
		t.Fatalf("components %v, want [[0 1] [2] [3]]", c)
	}
	res, err := Optimize(context.Background(), g, OptimizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Components != 3 {
		t.Fatalf("%d components, want 3", res.Components)
	}
	if p := res.Graph.Poses[1]; math.Abs(p.X+1) > 1e-6 || res.Graph.Landmarks[1] != [2]float64{0, 1} {
		t.Fatalf("map 1 at %+v, landmark 1 at %v: want map 1 a metre behind map 0, landmark 1 at (0, 1)", p, res.Graph.Landmarks[1])
	}
	if _, err := Optimize(context.Background(), g, OptimizeOptions{MaxMaps: 1}); err == nil || !strings.Contains(err.Error(), "2 maps") {
		t.Fatalf("a component over MaxMaps: %v", err)
	}
}

// TestOptimizeMaxMaps: MaxMaps bounds a component whose reduced system is
// dense (many landmarks), not one whose maps are eliminated (few
// landmarks, banded odometry), which holds no maps × maps matrix.
func TestOptimizeMaxMaps(t *testing.T) {
	for _, tc := range []struct {
		maps, marks int
		wantErr     bool
	}{
		{24, 60, true},
		{200, 12, false},
	} {
		g, _, _ := circleGraph(tc.maps, tc.marks, true)
		_, err := Optimize(context.Background(), g, OptimizeOptions{MaxMaps: 10})
		if (err != nil) != tc.wantErr || err != nil && !strings.Contains(err.Error(), fmt.Sprintf("%d maps", tc.maps)) {
			t.Errorf("%d maps, %d landmarks, MaxMaps 10: error %v, want one: %v", tc.maps, tc.marks, err, tc.wantErr)
		}
	}
}

func TestCompareReference(t *testing.T) {
	var path []localmap.Pose
	var times []float64
	var ref []localmap.Fix
	frame := localmap.Pose{X: 5, Y: -3, Theta: 1}
	for k := 0; k <= 20; k++ {
		p := localmap.Pose{X: float64(k), Y: math.Sin(float64(k) / 3)}
		path, times = append(path, p), append(times, float64(k))
		if k%2 == 1 {
			x, y := frame.Apply(p.X, p.Y)
			ref = append(ref, localmap.Fix{T: float64(k) + 0.5, X: x, Y: y}) // half a step late
		}
	}
	ref = append(ref, localmap.Fix{T: 30, X: 1e6}) // after the path: left out
	e, moved, ok := CompareReference(path, times, ref)
	if !ok || e.Fixes != 10 || len(moved) != 10 {
		t.Fatalf("%+v, %d moved, ok %v: want 10 fixes", e, len(moved), ok)
	}
	// Each fix lies where the path was half a step earlier: within the
	// path's step, and not on it.
	if !(e.RMS > 0.1 && e.Max < 0.8) {
		t.Fatalf("path error %+v", e)
	}
	if _, _, ok := CompareReference(path, times, ref[:2]); ok {
		t.Fatal("two fixes compared")
	}
}

// EstimateNoise reads a landmark's deviation from the pairings and the
// odometry's from consecutive maps' motions; too few pairs keep the
// defaults.
func TestEstimateNoise(t *testing.T) {
	maps := []localmap.Map{}
	for k := 0; k < 8; k++ {
		maps = append(maps, localmap.Map{Name: string(rune('a' + k)), Landmarks: []localmap.Landmark{{Name: "p", X: 1}, {Name: "q", Y: 1}}})
	}
	poses := make([]localmap.Pose, 8)
	for k := range poses {
		poses[k] = localmap.Pose{X: 10 * float64(k)}
	}
	a := &Association{Motions: map[[2]int]Motion{}}
	for k := 1; k < 8; k++ {
		// The association finds each map 0.5 m further than the poses say
		// (10 m apart) and 0.01 rad turned.
		a.Motions[[2]int{k - 1, k}] = Motion{X: 10.5, Theta: 0.01, Matches: 2}
		a.Pairings = append(a.Pairings, Pairing{I: k - 1, A: 0, J: k, B: 0})
	}
	for _, tc := range []struct {
		name      string
		poses     []localmap.Pose
		pairs     int
		tolerance float64
		want      Noise
	}{
		{"poses", poses, 7, 0.25, Noise{}},
		{"no poses", nil, 7, 0.25, Noise{Drift: DefaultNoise.Drift, TurnDrift: DefaultNoise.TurnDrift}},
		{"too few pairs", poses, 4, 0.25, Noise{Drift: DefaultNoise.Drift, TurnDrift: DefaultNoise.TurnDrift}},
		// 0.5 m off with a tolerance of 0.1: maps a spacing from where the
		// poses put them, associated by chance.
		{"chance pairs", poses, 7, 0.1, Noise{Drift: DefaultNoise.Drift, TurnDrift: DefaultNoise.TurnDrift}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &Association{Motions: map[[2]int]Motion{}, Pairings: a.Pairings[:tc.pairs], Tolerance: tc.tolerance}
			for _, p := range b.Pairings {
				b.Motions[[2]int{p.I, p.J}] = a.Motions[[2]int{p.I, p.J}]
			}
			n := EstimateNoise(&localmap.Set{Maps: maps, Poses: tc.poses}, b)
			// Each pairing's landmark p (1, 0), moved by its pair's
			// motion, lies |Δ| from itself: σ = |Δ| / 1.665.
			if math.Abs(n.Landmark-math.Hypot(10.5+math.Cos(0.01)-1, math.Sin(0.01))/1.665) > 1e-9 {
				t.Fatalf("landmark σ %v", n.Landmark)
			}
			if tc.want.Drift != 0 && (n.Drift != tc.want.Drift || n.TurnDrift != tc.want.TurnDrift) {
				t.Fatalf("odometry %v %v, want the defaults", n.Drift, n.TurnDrift)
			}
			if tc.want.Drift == 0 {
				// The map's landmarks' centroid (0.5, 0.5) lands 0.5 m
				// and a little off, over 10 m of path.
				if !(n.Drift > 0.5/10/1.177*0.95 && n.Drift < 0.5/10/1.177*1.1) || math.Abs(n.TurnDrift-0.01/10/0.674) > 1e-9 {
					t.Fatalf("odometry %v m/m, %v rad/m", n.Drift, n.TurnDrift)
				}
			}
		})
	}
}
