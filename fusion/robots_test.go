package fusion

import (
	"math"
	"reflect"
	"testing"

	"github.com/clearmatch/clearmatch/localmap"
)

// Robot b's frame lies at (10, 5), turned 0.5 rad, in robot a's: two
// agreeing map pairs place it there; one pair alone does not join them.
func TestAlignRobots(t *testing.T) {
	frameB := localmap.Pose{X: 10, Y: 5, Theta: 0.5}
	truth := []localmap.Pose{{}, {X: 3}, {X: 1, Y: 1}, {X: 4, Y: 1, Theta: 0.2}} // maps a0 a1 b0 b1 in a's frame
	s := &localmap.Set{Maps: make([]localmap.Map, 4), Robots: []string{"a", "a", "b", "b"}}
	for k, p := range truth {
		if s.Robots[k] == "b" {
			p = inverse(frameB)
			p = compose(p, truth[k]) // b's own odometry frame
		}
		s.Poses = append(s.Poses, p)
	}
	motion := func(i, j int) Motion { // j's frame in i's
		m := truth[i].Between(truth[j])
		return Motion{X: m.X, Y: m.Y, Theta: m.Theta, Matches: 5}
	}
	for _, tc := range []struct {
		name   string
		pairs  [][2]int
		groups int
	}{{"two pairs", [][2]int{{0, 2}, {1, 3}}, 1}, {"one pair", [][2]int{{0, 2}}, 2}} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Association{Motions: map[[2]int]Motion{}}
			for _, p := range tc.pairs {
				a.Motions[p] = motion(p[0], p[1])
			}
			poses, group, groups := AlignRobots(s, a)
			if groups != tc.groups || (groups == 1) != (group[2] == group[0]) {
				t.Fatalf("groups %d %v, want %d", groups, group, tc.groups)
			}
			if groups == 1 {
				for k, p := range poses {
					if math.Hypot(p.X-truth[k].X, p.Y-truth[k].Y) > 1e-9 || math.Abs(math.Remainder(p.Theta-truth[k].Theta, 2*math.Pi)) > 1e-9 {
						t.Fatalf("map %d at %+v, truly %+v", k, p, truth[k])
					}
				}
			} else if poses[2] != s.Poses[2] {
				t.Fatal("a robot not joined was moved")
			}
		})
	}
}

func TestGroupMaps(t *testing.T) {
	for _, tc := range []struct {
		frames []int
		want   [][]int
	}{
		{nil, nil},
		{[]int{0, 0, 0}, [][]int{{0, 1, 2}}},
		{[]int{1, 0, 1, 2, 0}, [][]int{{0, 2}, {1, 4}, {3}}}, // by first map
	} {
		if got := GroupMaps(tc.frames); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("GroupMaps(%v) = %v, want %v", tc.frames, got, tc.want)
		}
	}
}

func TestRobotNumbers(t *testing.T) {
	for _, tc := range []struct {
		names  []string
		want   []int
		robots int
	}{
		{nil, []int{}, 0},
		{[]string{"b", "a", "b", "c"}, []int{0, 1, 0, 2}, 3}, // by first map
	} {
		s := &localmap.Set{Robots: tc.names}
		if got, n := RobotNumbers(s); !reflect.DeepEqual(got, tc.want) || n != tc.robots {
			t.Errorf("RobotNumbers(%v) = %v, %d, want %v, %d", tc.names, got, n, tc.want, tc.robots)
		}
	}
}
