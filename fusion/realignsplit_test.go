package fusion

import (
	"fmt"
	"math"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// splitWorld is twelve landmarks 1.2 m apart or more, drawn at random.
var splitWorld = [][2]float64{{1.6, 0.8}, {3.3, 0.4}, {2.7, 1.8}, {0.3, 2.5}, {0.3, 0.5}, {2.1, 4.1}, {4.9, 0.2}, {4.3, 1.4},
	{1.6, 2.9}, {4, 3.5}, {4.2, 4.7}, {0.3, 3.8}}

// splitFar is eight landmarks beyond splitWorld, 1.2 m apart or more.
var splitFar = [][2]float64{{6.5, 0.3}, {8.1, 0.9}, {7.2, 2.2}, {9.0, 2.6}, {6.4, 3.6}, {8.0, 4.0}, {9.4, 4.8}, {6.9, 5.1}}

// splitScene is one robot's maps, each at the origin of the world
// (splitWorld, then splitFar) and seeing five of its landmarks, clustered
// by truth, but from map at on, which the optimizer left turned by turn
// about (2, 2) in clusters of their own: the robot's map twice. Maps
// before at see splitWorld; from at on, the landmarks late (in turn;
// nil: as before).
func splitScene(maps, at int, turn float64, late []int) (*localmap.Set, *Result, *Optimized) {
	world := append(append([][2]float64(nil), splitWorld...), splitFar...)
	n := len(world)
	s := &localmap.Set{}
	r := &Result{Clusters: 2 * n}
	poses := make([]localmap.Pose, maps)
	swing := localmap.Pose{Theta: turn}
	swing.X, swing.Y = 2-(math.Cos(turn)*2-math.Sin(turn)*2), 2-(math.Sin(turn)*2+math.Cos(turn)*2)
	marks := make([][2]float64, 2*n)
	for id, p := range world {
		marks[id] = p
		marks[n+id][0], marks[n+id][1] = swing.Apply(p[0], p[1])
	}
	for k := range maps {
		m := localmap.Map{Name: fmt.Sprint(k)}
		for j := range 5 {
			id := (3*k + 2*j) % len(splitWorld)
			if k >= at && late != nil {
				id = late[(5*k+j)%len(late)]
			}
			m.Landmarks = append(m.Landmarks, localmap.Landmark{Name: fmt.Sprint(id), X: world[id][0], Y: world[id][1]})
			c := id
			if k >= at {
				c = n + id
			}
			r.Cluster = append(r.Cluster, c)
		}
		s.Maps = append(s.Maps, m)
		if k >= at {
			poses[k] = swing
		}
	}
	opt := &Optimized{Graph: &PoseGraph{Poses: poses, Landmarks: marks}, Component: make([]int, maps)}
	return s, r, opt
}

func TestRealignSplit(t *testing.T) {
	const tol, radius = 0.4, 0.6
	later := func(maps, at int) []int { // frames: the maps from at on apart
		f := make([]int, maps)
		for k := at; k < maps; k++ {
			f[k] = 1
		}
		return f
	}
	for _, tc := range []struct {
		name            string
		maps, at        int
		turn            float64
		frames          []int
		late            []int
		moved, movedOff int // how many maps move, the first of them
	}{
		{"the later half turned by 0.5 rad moves back", 14, 7, 0.5, nil, nil, 7, 7},
		{"turned the other way by 1.5 rad", 14, 7, -1.5, nil, nil, 7, 7},
		{"the half of fewer maps moves: the earlier", 16, 6, 0.5, nil, nil, 6, 0},
		{"one map from the end is no half", 14, 13, 0.5, nil, nil, 0, 0},
		{"where the halves agree, nothing moves", 14, 7, 0, nil, nil, 0, 0},
		{"halves in two frames are not one robot's map", 14, 7, 0.5, later(14, 7), nil, 0, 0},
		{"too few maps to split", 2*SplitMaps - 1, SplitMaps, 0.5, nil, nil, 0, 0},
		{"a later half on new ground, four landmarks shared, stays", 14, 7, 0.5, nil, []int{0, 1, 2, 5, 12, 13, 14, 15, 16, 17, 18, 19}, 0, 0},
		{"a later half that sees the earlier's again moves", 14, 7, 0.5, nil, []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 7, 7},
	} {
		s, r, opt := splitScene(tc.maps, tc.at, tc.turn, tc.late)
		got := RealignSplit(s, r, opt, tc.frames, tol, radius, 2)
		if got.Maps != tc.moved {
			t.Errorf("%s: %d maps moved, want %d", tc.name, got.Maps, tc.moved)
			continue
		}
		if tc.moved == 0 {
			if got.Result != r {
				t.Errorf("%s: nothing moved, but the clusters changed", tc.name)
			}
			continue
		}
		// The moved half lies where the other is: every map at the
		// other's pose, up to one motion of the whole.
		ref := got.Poses[0]
		if tc.movedOff == 0 {
			ref = got.Poses[tc.maps-1]
		}
		for k, p := range got.Poses {
			if math.Hypot(p.X-ref.X, p.Y-ref.Y) > 0.05 || math.Abs(math.Remainder(p.Theta-ref.Theta, 2*math.Pi)) > 0.02 {
				t.Errorf("%s: map %d at %+v, want %+v as every map", tc.name, k, p, ref)
				break
			}
		}
		if got.Result.Clusters != len(splitWorld) {
			t.Errorf("%s: %d clusters, want one per landmark, %d", tc.name, got.Result.Clusters, len(splitWorld))
		}
		for g, c := range got.Result.Cluster { // each landmark's observations in one cluster
			id := s.Maps[g/5].Landmarks[g%5].Name
			if want := got.Result.Cluster[firstObservationOf(s, id, 0)]; c != want || c < 0 {
				t.Errorf("%s: observation %d (landmark %s) in cluster %d, want %d", tc.name, g, id, c, want)
				break
			}
		}
	}
}
