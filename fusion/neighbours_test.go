package fusion

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// corridor is a robot's maps along a corridor of landmarks 1.5 m apart
// (jittered), one map every 2 m of path holding the landmarks within 4 m
// ahead, each seen with noise (m); the poses are the true ones, moved by
// pose (k, the true pose).
func corridor(noise float64, pose func(k int, p localmap.Pose) localmap.Pose) *localmap.Set {
	rng := rand.New(rand.NewPCG(1, 2))
	var marks [][2]float64
	for x := 0.0; x < 80; x += 1.5 {
		for _, y := range []float64{-1.2, 1.2} {
			marks = append(marks, [2]float64{x + 0.4*rng.Float64(), y + 0.4*rng.Float64()})
		}
	}
	s := &localmap.Set{}
	for k := 0; k < 36; k++ {
		p := localmap.Pose{X: 2 * float64(k), Y: 0.3 * math.Sin(float64(k)/3), Theta: 0.1 * math.Cos(float64(k)/3)}
		m := localmap.Map{Name: fmt.Sprint(k)}
		for n, w := range marks {
			x, y := p.Inverse(w[0], w[1])
			if x > 0 && x < 4 {
				m.Landmarks = append(m.Landmarks, localmap.Landmark{Name: fmt.Sprint(n), X: x + noise*rng.NormFloat64(), Y: y + noise*rng.NormFloat64(), Truth: fmt.Sprint(n)})
			}
		}
		s.Maps = append(s.Maps, m)
		s.Poses = append(s.Poses, pose(k, p))
	}
	return s
}

// TestNeighbourDrift: a robot's neighbouring maps, placed by poses that
// drift little, give a drift to gate by; placed by poses that say
// nothing of where the maps are, they give too few agreeing alignments.
func TestNeighbourDrift(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name     string
		pose     func(k int, p localmap.Pose) localmap.Pose
		gate     bool
		maxDrift float64
	}{
		{"true poses", func(_ int, p localmap.Pose) localmap.Pose { return p }, true, 0.01},
		{"poses turning 0.01 rad a map", func(k int, p localmap.Pose) localmap.Pose {
			return localmap.Pose{X: p.X * math.Cos(0.01*float64(k)), Y: p.X*math.Sin(0.01*float64(k)) + p.Y, Theta: p.Theta + 0.01*float64(k)}
		}, true, 0.05},
		{"random poses", func(int, localmap.Pose) localmap.Pose {
			return localmap.Pose{X: 80 * rng.Float64(), Y: 20 * rng.Float64(), Theta: 2 * math.Pi * rng.Float64()}
		}, false, 0},
	} {
		s := corridor(0.05, tc.pose)
		tol := AutoTolerance(s)
		idx := make([]*mapIndex, len(s.Maps))
		for k := range s.Maps {
			idx[k] = newMapIndex(&s.Maps[k], tol, 6)
		}
		drift, turn, n := neighbourDrift(s, pathLengths(s), idx, tol)
		if gate := n >= MinDriftPairs; gate != tc.gate || gate && (drift > tc.maxDrift || turn > tc.maxDrift) {
			t.Errorf("%s: drift %.4f m/m, %.5f rad/m from %d alignments; want a gate %v, drift at most %v", tc.name, drift, turn, n, tc.gate, tc.maxDrift)
		}
	}
}
