package fusion

import (
	"math"
	"strconv"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// bentScene is endsScene's robot with its odometry known (every map at
// the origin, so each predicts the next exactly) and its third and
// fourth maps, not its first two, swung by turn about (2, 1), their
// landmarks in no cluster: the path bent in its middle.
func bentScene(turn float64) (*localmap.Set, *Result, *Optimized) {
	s, r, opt := endsScene(0)
	s.Poses = make([]localmap.Pose, len(s.Maps))
	for g := range r.Cluster {
		k := g / 4
		r.Cluster[g], _ = strconv.Atoi(s.Maps[k].Landmarks[g%4].Name)
		if turn != 0 && (k == 2 || k == 3) {
			r.Cluster[g] = -1
		}
	}
	for k := range opt.Graph.Poses {
		opt.Graph.Poses[k] = localmap.Pose{}
		if k == 2 || k == 3 {
			opt.Graph.Poses[k] = swungAbout21(turn)
		}
	}
	return s, r, opt
}

func TestRetracked(t *testing.T) {
	const tol, radius = 0.4, 0.6
	for _, tc := range []struct {
		name    string
		turn    float64
		frames  []int
		noPoses bool
		placed  int // placements returned (forwards, backwards), each moving the two bent maps back
	}{
		{"the bent maps come back, forwards and backwards", 0.6, nil, false, 2},
		{"bent by more than RelocateTurn", -1, nil, false, 2},
		{"where they belong, nothing changes", 0, nil, false, 0},
		{"a robot across frame groups is not placed again", 0.6, []int{0, 0, 0, 1, 1, 1}, false, 0},
		{"without poses, nothing to predict by", 0.6, nil, true, 0},
	} {
		s, r, opt := bentScene(tc.turn)
		if tc.noPoses {
			s.Poses = nil
		}
		got := Retracked(s, r, opt, tc.frames, tol, radius, 2)
		if len(got) != tc.placed {
			t.Errorf("%s: %d placements, want %d", tc.name, len(got), tc.placed)
			continue
		}
		for _, rel := range got {
			if rel.Maps != 2 {
				t.Errorf("%s: %d maps changed, want 2", tc.name, rel.Maps)
			}
			for k, p := range rel.Poses {
				if math.Hypot(p.X, p.Y) > 0.05 || math.Abs(p.Theta) > 0.02 {
					t.Errorf("%s: map %d at %+v, want the origin", tc.name, k, p)
				}
			}
			for g, c := range rel.Result.Cluster { // every observation with its landmark's
				id := s.Maps[g/4].Landmarks[g%4].Name
				if want := rel.Result.Cluster[firstObservationOf(s, id, 0)]; c != want || want < 0 {
					t.Errorf("%s: observation %d (landmark %s) in cluster %d, want %d", tc.name, g, id, c, want)
				}
			}
		}
	}
}

func TestCostCountingLone(t *testing.T) {
	s, _, _ := bentScene(0) // 24 observations
	for _, tc := range []struct {
		name string
		cost float64
		read int // observations the optimizer read
		want float64
	}{
		{"every observation read", 3.5, 24, 3.5},
		{"four in no cluster cost an outlier each", 3.5, 20, 3.5 + 4*OutlierCost},
		{"none read", 0, 0, 24 * OutlierCost},
	} {
		opt := &Optimized{Graph: &PoseGraph{Observations: make([]Observation, tc.read)}, Cost: tc.cost}
		if got := opt.CostCountingLone(s); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
