package fusion

import (
	"math"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// Drift read from neighbouring maps. On sparse, noisy maps the search
// without poses associates too few pairs to read the odometry's drift
// from (estimateDrift), yet a robot's maps close in time lie close to
// where its odometry puts them: their landmarks' errors there are the
// maps' own and a short path's drift, well under the landmarks' spacing.
// So each map is aligned with its robot's neighbourLag maps before it,
// gated as widely as a gate may be and still say which landmark is which
// (half the spacing), and the drift is read from those alignments as
// from the search's.

// neighbourLag is how many maps before each one its drift is read
// against: three keep the path short, and give three samples a map.
const neighbourLag = 3

// neighbourDrift is the drift read from each map's alignment with its
// robot's neighbourLag maps before it (path the poses' path lengths,
// pathLengths): the pose-gated alignment (alignPosed) within half the
// earlier map's landmark spacing, kept where two pairings or more agree,
// read as estimateDrift reads the search's pairs but for each turn,
// counted beyond what the tolerance lets the matched landmarks turn
// (matchedRadius): two landmarks a metre apart, each off by the maps'
// noise, turn a fit by more than a short path turns the odometry. Its
// offsets cannot exceed the gate, so it is a floor under a drift larger
// than that; it is used only where the search gives too few pairs.
func neighbourDrift(s *localmap.Set, path []float64, idx []*mapIndex, tol float64) (drift, turn float64, n int) {
	prev := s.Previous()
	var samples []driftSample
	for j := range s.Maps {
		i := prev[j]
		for lag := 0; lag < neighbourLag && i >= 0; lag, i = lag+1, prev[i] {
			d := math.Abs(path[j] - path[i])
			half := idx[i].spacing / 2
			if d <= 0 || half <= tol || len(idx[j].pts) == 0 {
				continue
			}
			g := posedGate{pred: predict(s.Poses[i], s.Poses[j]), base: (half - tol) / 3}
			f := alignPosed(idx[i], idx[j], &g, tol)
			if len(f.matches) < 2 {
				continue
			}
			x := sampleOf(f, g.pred, idx[j].pts, d, tol)
			x.turn = max(0, x.turn-tol/matchedRadius(idx[j].pts, f.matches))
			samples = append(samples, x)
		}
	}
	return readDrift(agreeing(samples))
}

// sampleOf is an alignment f of a map pair read against the motion pred
// the poses give (pts the second map's landmarks, d the path between the
// two maps): how far f lays the second map's centroid from where pred
// does, beyond the tolerance, and by what angle it turns it.
func sampleOf(f, pred alignment, pts []geom.Point, d, tol float64) driftSample {
	c := centroid(pts)
	q, r := f.apply(c), pred.apply(c)
	return driftSample{path: d, off: max(0, math.Hypot(q.X-r.X, q.Y-r.Y)-tol),
		turn: math.Abs(math.Remainder(f.theta-pred.theta, 2*math.Pi))}
}

// matchedRadius is the RMS distance of the matched landmarks of the second
// map (matches' second indices into pts) from their centroid: a fit whose
// pairings each lie within tol of their mates may turn by tol over it
// from the true motion, as the maps' own noise and not the odometry's.
func matchedRadius(pts []geom.Point, matches [][2]int) float64 {
	matched := make([]geom.Point, len(matches))
	for k, m := range matches {
		matched[k] = pts[m[1]]
	}
	c := centroid(matched)
	var ss float64
	for _, p := range matched {
		ss += (p.X-c.X)*(p.X-c.X) + (p.Y-c.Y)*(p.Y-c.Y)
	}
	return math.Sqrt(ss / float64(len(matched)))
}

// centroid is the mean of pts (each divided by their count as it is
// added).
func centroid(pts []geom.Point) geom.Point {
	var c geom.Point
	for _, p := range pts {
		c.X, c.Y = c.X+p.X/float64(len(pts)), c.Y+p.Y/float64(len(pts))
	}
	return c
}
