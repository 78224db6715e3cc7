package localmap

import (
	"fmt"
	"math"
)

// Landmark is one landmark of a local map.
type Landmark struct {
	// Name is the landmark's name in its map (unique within it).
	Name string
	// X, Y, Z is its position in the map's frame, metres (Z 0 for planar
	// maps).
	X, Y, Z float64
	// Truth is its true identity, the same across maps; "" when unknown.
	Truth string
}

// Map is one local map.
type Map struct {
	Name      string
	Landmarks []Landmark
}

// Pose is a map frame's pose in the odometry frame: position (metres)
// and heading (radians, counter-clockwise from the odometry x axis).
type Pose struct{ X, Y, Theta float64 }

// Apply maps a point of the pose's frame into the odometry frame.
func (p Pose) Apply(x, y float64) (float64, float64) {
	s, c := math.Sincos(p.Theta)
	return p.X + c*x - s*y, p.Y + s*x + c*y
}

// Inverse maps a point of the odometry frame into the pose's frame.
func (p Pose) Inverse(x, y float64) (float64, float64) {
	s, c := math.Sincos(p.Theta)
	dx, dy := x-p.X, y-p.Y
	return c*dx + s*dy, -s*dx + c*dy
}

// Between is q in p's frame: the relative pose from p to q.
func (p Pose) Between(q Pose) Pose {
	x, y := p.Inverse(q.X, q.Y)
	return Pose{X: x, Y: y, Theta: wrapAngle(q.Theta - p.Theta)}
}

// wrapAngle brings an angle into (−π, π].
func wrapAngle(a float64) float64 {
	a = math.Mod(a, 2*math.Pi)
	switch {
	case a > math.Pi:
		a -= 2 * math.Pi
	case a <= -math.Pi:
		a += 2 * math.Pi
	}
	return a
}

// Set is the input of map fusion.
type Set struct {
	Maps []Map
	// Poses holds each map frame's pose in the odometry frame, one per
	// map; nil when not known.
	Poses []Pose
	// Robots names each map's robot when the maps come from several, each
	// with its own odometry frame (unrelated to the others'); nil for one.
	Robots []string
	// Trajectory is the dead-reckoned path of a robot log (odometry
	// frame); nil for maps read from a file. TrajectoryTimes holds each
	// of its poses' time and Times each map's start time (s), for logs.
	Trajectory      []Pose
	TrajectoryTimes []float64
	Times           []float64
	// ThreeD reports that the landmarks have a z coordinate.
	ThreeD bool
	// MergeRadius is the radius FromLog merged sightings within, metres.
	MergeRadius float64
}

// Previous is, for each map, the map before it of the same robot (−1 for
// a robot's first): odometry joins the two.
func (s *Set) Previous() []int {
	out := make([]int, len(s.Maps))
	last := map[string]int{}
	for k := range s.Maps {
		r := s.Robot(k)
		out[k] = -1
		if p, ok := last[r]; ok {
			out[k] = p
		}
		last[r] = k
	}
	return out
}

// Robot is map k's robot ("" when the set is one robot's).
func (s *Set) Robot(k int) string {
	if s.Robots == nil {
		return ""
	}
	return s.Robots[k]
}

// SameRobot reports whether maps i and j share an odometry frame.
func (s *Set) SameRobot(i, j int) bool {
	return s.Robots == nil || s.Robots[i] == s.Robots[j]
}

// Landmarks counts every map's landmarks.
func (s *Set) Landmarks() int {
	n := 0
	for _, m := range s.Maps {
		n += len(m.Landmarks)
	}
	return n
}

// HasTruth reports whether every landmark carries its true identity.
func (s *Set) HasTruth() bool {
	for _, m := range s.Maps {
		for _, l := range m.Landmarks {
			if l.Truth == "" {
				return false
			}
		}
	}
	return s.Landmarks() > 0
}

// MaxCoordinate bounds a landmark's or a pose's coordinates, metres: four
// times the Earth's circumference holds any local, UTM or Earth-centred
// frame, and a value beyond it is a unit or parsing mistake, which would
// only make the association's grids degenerate.
const MaxCoordinate = 1.6e8

// Validate reports a set fusion cannot use: no map, a map without
// landmarks, duplicate names, non-finite coordinates or poses or ones
// beyond MaxCoordinate, a pose count that is not the map count.
func (s *Set) Validate() error {
	if len(s.Maps) == 0 {
		return fmt.Errorf("no local maps")
	}
	seen := map[string]bool{}
	for _, m := range s.Maps {
		if seen[m.Name] {
			return fmt.Errorf("map %q appears twice", m.Name)
		}
		seen[m.Name] = true
		if len(m.Landmarks) == 0 {
			return fmt.Errorf("map %q has no landmarks", m.Name)
		}
		names := map[string]bool{}
		for _, l := range m.Landmarks {
			if names[l.Name] {
				return fmt.Errorf("map %q: landmark %q appears twice", m.Name, l.Name)
			}
			names[l.Name] = true
			if !finite(l.X, l.Y, l.Z) {
				return fmt.Errorf("map %q: landmark %q is not at a finite position", m.Name, l.Name)
			}
			if v, far := beyond(l.X, l.Y, l.Z); far {
				return fmt.Errorf("map %q: landmark %q has a coordinate %g m, beyond ±%g m", m.Name, l.Name, v, MaxCoordinate)
			}
		}
	}
	if s.Poses != nil && len(s.Poses) != len(s.Maps) {
		return fmt.Errorf("%d poses for %d maps", len(s.Poses), len(s.Maps))
	}
	if s.Robots != nil && len(s.Robots) != len(s.Maps) {
		return fmt.Errorf("%d robots for %d maps", len(s.Robots), len(s.Maps))
	}
	for k, p := range s.Poses {
		if !finite(p.X, p.Y, p.Theta) {
			return fmt.Errorf("map %q: pose is not finite", s.Maps[k].Name)
		}
		if v, far := beyond(p.X, p.Y); far {
			return fmt.Errorf("map %q: pose has a coordinate %g m, beyond ±%g m", s.Maps[k].Name, v, MaxCoordinate)
		}
	}
	return nil
}

// beyond returns the first of v farther from 0 than MaxCoordinate.
func beyond(v ...float64) (float64, bool) {
	for _, x := range v {
		if math.Abs(x) > MaxCoordinate {
			return x, true
		}
	}
	return 0, false
}

func finite(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// Join is several robots' sets as one (Set.Robots: robots[i] for sets[i]'s
// maps): each map named "robot/map", each robot's poses in its own frame.
// Every set must have poses, and all be planar or all 3-D; the
// trajectories, one per robot, are left out.
func Join(robots []string, sets []*Set) (*Set, error) {
	out := &Set{}
	seen := map[string]bool{}
	for i, s := range sets {
		if seen[robots[i]] {
			return nil, fmt.Errorf("robot %q appears twice", robots[i])
		}
		seen[robots[i]] = true
		if s.Poses == nil {
			return nil, fmt.Errorf("robot %q: no poses", robots[i])
		}
		if i > 0 && s.ThreeD != out.ThreeD {
			return nil, fmt.Errorf("robot %q: 3-D maps among planar ones", robots[i])
		}
		out.ThreeD, out.MergeRadius = s.ThreeD, max(out.MergeRadius, s.MergeRadius)
		for k, m := range s.Maps {
			m.Name = robots[i] + "/" + m.Name
			out.Maps, out.Poses, out.Robots = append(out.Maps, m), append(out.Poses, s.Poses[k]), append(out.Robots, robots[i])
		}
	}
	return out, nil
}
