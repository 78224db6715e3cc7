package fusion

import (
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// MoveTrajectory is s's dead-reckoned trajectory carried along with its
// map frames to poses (Optimize's): each trajectory pose moves rigidly
// with the map whose window it lies in (the last map starting at or
// before it; the first map before that). Nil when s has no timed
// trajectory.
func MoveTrajectory(s *localmap.Set, poses []localmap.Pose) []localmap.Pose {
	if len(s.Trajectory) == 0 || len(s.TrajectoryTimes) != len(s.Trajectory) || len(s.Times) != len(s.Maps) {
		return nil
	}
	out := make([]localmap.Pose, len(s.Trajectory))
	for i, p := range s.Trajectory {
		k := max(0, sort.SearchFloat64s(s.Times, s.TrajectoryTimes[i]+1e-12)-1)
		out[i] = compose(poses[k], s.Poses[k].Between(p))
	}
	return out
}

// PathError is a trajectory's distance from reference positions (GPS)
// after the rigid motion that brings the reference closest (the absolute
// trajectory error of Sturm et al., IROS 2012, in the plane): the root
// mean square, the median and the largest, metres, over Fixes reference
// positions within the trajectory's time span (a GPS glitch shows in the
// largest alone).
type PathError struct {
	RMS    float64 `json:"rms_m"`
	Median float64 `json:"median_m"`
	Max    float64 `json:"max_m"`
	Fixes  int     `json:"fixes"`
}

// CompareReference is the path error of the trajectory path (at times,
// increasing) against ref, and ref moved into the trajectory's frame by
// that motion (its positions within the span only). ok is false with
// fewer than three reference positions in the span.
func CompareReference(path []localmap.Pose, times []float64, ref []localmap.Fix) (e PathError, moved [][2]float64, ok bool) {
	var a, b []geom.Point // reference, trajectory at the reference's times
	var pairs [][2]int
	for _, f := range ref {
		k := sort.SearchFloat64s(times, f.T)
		if len(times) == 0 || f.T < times[0] || f.T > times[len(times)-1] {
			continue
		}
		p := geom.Point{X: path[k].X, Y: path[k].Y}
		if times[k] > f.T {
			u := (f.T - times[k-1]) / (times[k] - times[k-1])
			p = geom.Point{X: path[k-1].X + u*(path[k].X-path[k-1].X), Y: path[k-1].Y + u*(path[k].Y-path[k-1].Y)}
		}
		pairs = append(pairs, [2]int{len(a), len(a)})
		a, b = append(a, geom.Point{X: f.X, Y: f.Y}), append(b, p)
	}
	if len(a) < 3 {
		return PathError{}, nil, false
	}
	th, t := fitRigid(b, a, pairs)
	m := localmap.Pose{X: t[0], Y: t[1], Theta: th}
	sum, ds := 0.0, make([]float64, len(a))
	for i := range a {
		x, y := m.Apply(a[i].X, a[i].Y)
		d := math.Hypot(x-b[i].X, y-b[i].Y)
		sum, ds[i] = sum+d*d, d
		e.Max = max(e.Max, d)
		moved = append(moved, [2]float64{x, y})
	}
	e.RMS, e.Median, e.Fixes = math.Sqrt(sum/float64(len(a))), median(ds), len(a)
	return e, moved, true
}
