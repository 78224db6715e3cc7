package fusion

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// loop is a robot driving two laps of a 5 m circle between two rings of
// landmarks (radius 3.5 and 6.5 m, 1.7 m apart along each, jittered), a
// map every metre of path holding the landmarks up to 5 m ahead and 3.5 m
// aside, seen with noise (m); its odometry turns turnPerMap radians more
// than it drove at each map, so by the second lap it places the maps
// metres from the first lap's. keep > 0 keeps only each map's keep
// landmarks nearest the robot, as a short-sighted camera sees them.
func loop(noise, turnPerMap float64, keep int) *localmap.Set {
	rng := rand.New(rand.NewPCG(5, 6))
	var marks [][2]float64
	for _, r := range []float64{3.5, 6.5} {
		n := int(2 * math.Pi * r / 1.7)
		for k := range n {
			a := 2*math.Pi*float64(k)/float64(n) + 0.1*rng.Float64()
			marks = append(marks, [2]float64{r * math.Cos(a), r * math.Sin(a)})
		}
	}
	s := &localmap.Set{}
	step := 1.0 / 5 // the angle of a metre of the circle
	var odo localmap.Pose
	for k := 0; float64(k) < 2*2*math.Pi*5; k++ { // a map a metre, two laps
		a := step * float64(k)
		p := localmap.Pose{X: 5 * math.Cos(a), Y: 5 * math.Sin(a), Theta: a + math.Pi/2}
		if k == 0 {
			odo = p
		} else {
			prev := localmap.Pose{X: 5 * math.Cos(a-step), Y: 5 * math.Sin(a-step), Theta: a - step + math.Pi/2}
			rel := prev.Between(p)
			rel.Theta += turnPerMap
			x, y := odo.Apply(rel.X, rel.Y)
			odo = localmap.Pose{X: x, Y: y, Theta: odo.Theta + rel.Theta}
		}
		m := localmap.Map{Name: fmt.Sprint(k)}
		for n, w := range marks {
			x, y := p.Inverse(w[0], w[1])
			if x > 0 && x < 5 && math.Abs(y) < 3.5 {
				m.Landmarks = append(m.Landmarks, localmap.Landmark{Name: fmt.Sprint(n), X: x + noise*rng.NormFloat64(), Y: y + noise*rng.NormFloat64(), Truth: fmt.Sprint(n)})
			}
		}
		if keep > 0 && len(m.Landmarks) > keep {
			slices.SortStableFunc(m.Landmarks, func(a, b localmap.Landmark) int {
				return cmp.Compare(math.Hypot(a.X, a.Y), math.Hypot(b.X, b.Y))
			})
			m.Landmarks = m.Landmarks[:keep]
		}
		s.Maps = append(s.Maps, m)
		s.Poses = append(s.Poses, odo)
	}
	return s
}

// TestTrackPairs: tracking pairs a robot's maps across its second lap,
// where its odometry has drifted metres, and pairs nothing wrong while
// each step's turn error stays well inside the gate; past it, tracking is
// lost and pairs little, and (the rings being nearly symmetric) a few of
// those wrongly. Maps of three landmarks are tracked too, along the lap:
// two agreeing pairings place a map.
func TestTrackPairs(t *testing.T) {
	for _, tc := range []struct {
		name         string
		noise        float64
		turnPerMap   float64
		keep         int     // landmarks a map keeps (0: all)
		across       bool    // pairings across the laps wanted
		minPrecision float64 // of the pairings made
		minRight     int
		maxPairings  int
	}{
		{"exact odometry", 0, 0, 0, true, 1, 0, 1e6},
		{"odometry turning 0.02 rad a map", 0.05, 0.02, 0, true, 1, 0, 1e6},
		{"odometry turning 0.15 rad a map", 0.05, 0.15, 0, false, 0.95, 0, 1e6},
		{"odometry turning 0.3 rad a map", 0.05, 0.3, 0, false, 0, 0, 50},
		{"maps of three landmarks", 0.05, 0.02, 3, false, 1, 100, 1e6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := loop(tc.noise, tc.turnPerMap, tc.keep)
			tol := AutoTolerance(s)
			idx := make([]*mapIndex, len(s.Maps))
			for k := range s.Maps {
				idx[k] = newMapIndex(&s.Maps[k], tol, 6)
			}
			lap := len(s.Maps) / 2
			var right, wrong, across int
			for pr, al := range trackPairs(s, idx, tol, trackPlaced) {
				for _, m := range al.matches {
					if s.Maps[pr[0]].Landmarks[m[0]].Truth != s.Maps[pr[1]].Landmarks[m[1]].Truth {
						wrong++
						continue
					}
					right++
					if pr[0] < lap/2 && pr[1] >= lap {
						across++
					}
				}
			}
			t.Logf("%d right pairings, %d of them across laps, %d wrong (%d maps, tolerance %.2f m)", right, across, wrong, len(s.Maps), tol)
			if float64(right) < tc.minPrecision*float64(right+wrong) || right < tc.minRight || right+wrong > tc.maxPairings || tc.across && across == 0 {
				t.Errorf("%d right, %d wrong, %d across laps: want precision %.2f or more, %d right or more, at most %d pairings, some across laps: %v", right, wrong, across, tc.minPrecision, tc.minRight, tc.maxPairings, tc.across)
			}
			if first, second := s.Poses[0], s.Poses[lap]; tc.turnPerMap > 0 && math.Hypot(first.X-second.X, first.Y-second.Y) < 2 {
				t.Fatalf("the odometry puts the laps' first maps %.1f m apart: the test wants metres", math.Hypot(first.X-second.X, first.Y-second.Y))
			}
		})
	}
}

// TestRobotChains: each robot's maps in order, robots in order of their
// first map.
func TestRobotChains(t *testing.T) {
	for _, tc := range []struct {
		robots []string
		want   [][]int
	}{
		{nil, [][]int{{0, 1, 2}}},
		{[]string{"a", "b", "a", "b", "c"}, [][]int{{0, 2}, {1, 3}, {4}}},
	} {
		s := &localmap.Set{Maps: make([]localmap.Map, 3), Robots: tc.robots}
		if tc.robots != nil {
			s.Maps = make([]localmap.Map, len(tc.robots))
		}
		if got := robotChains(s); !slices.EqualFunc(got, tc.want, slices.Equal) {
			t.Errorf("robots %v: chains %v, want %v", tc.robots, got, tc.want)
		}
	}
}

// TestShadowed: of two marks closer than the radius, the one seen less
// often (the later, on a tie) is shadowed; marks apart are not.
func TestShadowed(t *testing.T) {
	marks := []mark{
		{x: 0, obs: make([]observation, 1)},
		{x: 0.3, obs: make([]observation, 3)},
		{x: 2, obs: make([]observation, 1)},
		{x: 2.2, obs: make([]observation, 1)},
	}
	all := []int{0, 1, 2, 3}
	for c, want := range []bool{true, false, false, true} {
		if got := shadowed(marks, all, c, 0.5); got != want {
			t.Errorf("mark %d: shadowed %v, want %v", c, got, want)
		}
	}
}
