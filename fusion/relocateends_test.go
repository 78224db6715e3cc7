package fusion

import (
	"math"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// endsWorld is eight landmarks about 2 m apart, not on a grid.
var endsWorld = [][2]float64{{0, 0}, {2.1, 0.3}, {4.4, -0.2}, {0.3, 2.4}, {2.4, 2.9}, {4.2, 2.3}, {1.2, 4.6}, {3.5, 4.9}}

// endsScene is one robot's six maps, each at the origin of the world and
// seeing four of its landmarks, clustered by truth, but its first two,
// which the optimizer left swung by turn about (2, 1), their landmarks in
// no cluster.
func endsScene(turn float64) (*localmap.Set, *Result, *Optimized) {
	sees := [][]int{{0, 1, 3, 4}, {1, 2, 4, 5}, {0, 1, 2, 3}, {3, 4, 5, 6}, {4, 5, 6, 7}, {0, 2, 5, 7}}
	s := &localmap.Set{}
	r := &Result{Clusters: len(endsWorld)}
	poses := make([]localmap.Pose, len(sees))
	swing := swungAbout21(turn)
	for k, ids := range sees {
		s.Maps = append(s.Maps, worldMap(k, endsWorld, ids))
		for _, id := range ids {
			c := id
			if k < 2 {
				c = -1
			}
			r.Cluster = append(r.Cluster, c)
		}
		if k < 2 {
			poses[k] = swing
		}
	}
	opt := &Optimized{Graph: &PoseGraph{Poses: poses, Landmarks: endsWorld}, Component: make([]int, len(sees))}
	return s, r, opt
}

// swungAbout21 is the pose that turns the origin's frame by turn about
// (2, 1).
func swungAbout21(turn float64) localmap.Pose {
	return localmap.Pose{X: 2 - (math.Cos(turn)*2 - math.Sin(turn)*1), Y: 1 - (math.Sin(turn)*2 + math.Cos(turn)*1), Theta: turn}
}

func TestRelocateEnds(t *testing.T) {
	const tol, radius = 0.4, 0.6
	for _, tc := range []struct {
		name   string
		turn   float64
		frames []int
		moves  bool
	}{
		{"first two maps swung by 0.4 rad move back", 0.4, nil, true},
		{"swung the other way by 0.8 rad", -0.8, nil, true},
		{"where they belong, they stay", 0, nil, false},
		{"the other maps' clusters in another frame are no evidence", 0.4, []int{0, 0, 1, 1, 1, 1}, false},
	} {
		s, r, opt := endsScene(tc.turn)
		got := RelocateEnds(s, r, opt, tc.frames, tol, radius, 2)
		if (got.Maps > 0) != tc.moves {
			t.Errorf("%s: %d maps moved, want moved %v", tc.name, got.Maps, tc.moves)
			continue
		}
		if !tc.moves {
			continue
		}
		if got.Maps != 2 {
			t.Errorf("%s: %d maps moved, want the first 2", tc.name, got.Maps)
		}
		for k := range 2 {
			if p := got.Poses[k]; math.Hypot(p.X, p.Y) > 0.05 || math.Abs(p.Theta) > 0.02 {
				t.Errorf("%s: map %d at %+v, want the origin", tc.name, k, p)
			}
		}
		for g := range 8 { // the moved observations join their landmarks' clusters
			id := s.Maps[g/4].Landmarks[g%4].Name
			want := got.Result.Cluster[firstObservationOf(s, id, 2)]
			if got.Result.Cluster[g] != want || want < 0 {
				t.Errorf("%s: observation %d (landmark %s) in cluster %d, want %d", tc.name, g, id, got.Result.Cluster[g], want)
			}
		}
	}
}

func TestEndMotionsTurn(t *testing.T) {
	pts := []geom.Point{{X: 0, Y: 0}, {X: 2, Y: 0}}
	for _, tc := range []struct {
		turn float64
		want int
	}{{1.0, 1}, {-1.0, 1}, {1.3, 0}, {-1.3, 0}} {
		c, s := math.Cos(tc.turn), math.Sin(tc.turn)
		marks := []geom.Point{{X: 1 - c, Y: -s}, {X: 1 + c, Y: s}} // pts turned about (1, 0)
		got := endMotions(pts, marks, geom.NewGrid(marks, 0.6), 0.4)
		if len(got) != tc.want {
			t.Errorf("turn %v: %d motions, want %d (EndTurn %v)", tc.turn, len(got), tc.want, EndTurn)
		} else if len(got) == 1 && math.Abs(got[0].Theta-tc.turn) > 1e-9 {
			t.Errorf("turn %v: motion %+v", tc.turn, got[0])
		}
	}
}

// firstObservationOf is the first observation of landmark name in maps
// from on.
func firstObservationOf(s *localmap.Set, name string, from int) int {
	g := 0
	for k, m := range s.Maps {
		for _, l := range m.Landmarks {
			if k >= from && l.Name == name {
				return g
			}
			g++
		}
	}
	return -1
}
