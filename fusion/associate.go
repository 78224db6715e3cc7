package fusion

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/internal/pool"
	"github.com/clearmatch/clearmatch/localmap"
)

// AssociateOptions configure Associate. Zero fields take the defaults.
type AssociateOptions struct {
	// Tolerance (metres) within which a pairing must fit the pair's rigid
	// motion; 0 chooses it from the maps (AutoTolerance).
	Tolerance float64
	// MinMatches is the fewest pairings a map pair needs to be associated;
	// 0 means DefaultMinMatches.
	MinMatches int
	// Neighbours is how many nearest landmarks of each landmark form its
	// triangles; 0 means 6.
	Neighbours int
	// MinShare is the least fraction of the landmarks in the two maps'
	// overlap (under the motion) that the pairings must cover; 0 means
	// DefaultMinShare. A chance alignment of two maps that do not overlap
	// lays them on top of each other and pairs a few of many landmarks.
	MinShare float64
	// Drift is the odometry's position error per metre of path between
	// two maps (m/m) and TurnDrift its heading error (rad/m): with poses, a
	// map pair's pairings are gated around the motion the poses predict,
	// within the tolerance and three standard deviations (posed.go). 0
	// estimates them from the pairs the search without poses associates
	// (posed.go), or where it associates too few, from each map's
	// alignment with its robot's maps just before it (neighbours.go; no
	// gate when those are too few too); a negative Drift ignores the
	// poses.
	Drift, TurnDrift float64
	// MinPosed is the fewest gated pairings that associate a map pair
	// (0: DefaultMinPosed). The search without poses runs too, as
	// MinMatches says, and wins where it pairs more.
	MinPosed int
	// Track, with poses, also tracks each robot's maps in order
	// (track.go): each map placed by the landmarks of the maps before it,
	// its pairings kept where tracking forwards and backwards in time
	// agree, and winning a map pair where they pair more.
	Track bool
	// Workers bounds the pool (0: GOMAXPROCS).
	Workers int
	// Progress, if set, receives the map pairs done and their total.
	Progress func(done, total int)
}

// DefaultMinMatches, DefaultMinShare and DefaultMinPosed are
// AssociateOptions'; DefaultTurnDrift is the heading drift with a Drift
// given alone (docs/decisions.md, "The pose gate").
const (
	DefaultMinMatches = 5
	DefaultMinShare   = 0.5
	DefaultTurnDrift  = 0.003
	DefaultMinPosed   = 3
)

// Pairing is one association: landmark A of map I with landmark B of map
// J (I < J).
type Pairing struct{ I, A, J, B int }

// Association is every map pair's pairings, and the rigid motion each
// associated pair's fit (map J's frame to map I's), by pair.
type Association struct {
	Pairings  []Pairing
	Motions   map[[2]int]Motion
	Tolerance float64
	// Drift and TurnDrift are the pose gate's (estimated or given; 0
	// without poses or with the gate off); DriftPairs counts the map
	// pairs an estimate was read from; with fewer than MinDriftPairs it
	// is read from NeighbourPairs alignments of neighbouring maps instead
	// (neighbours.go), and with fewer of those there is no gate.
	Drift, TurnDrift float64
	DriftPairs       int
	NeighbourPairs   int
	// TrackedPairs counts the map pairs tracking associated (Track).
	TrackedPairs int
	// Gated holds the map pairs whose pairings the pose gate made (the
	// search without poses and tracking found fewer): long ones are
	// checked by VerifyLong.
	Gated map[[2]int]bool
}

// Motion is a planar rigid motion: x ↦ R(θ) x + (X, Y); Matches is the
// number of pairings it explains.
type Motion struct {
	X, Y, Theta float64
	Matches     int
}

// Associate pairs the landmarks of every two maps of s by geometric
// consistency alone. Pairs are computed in parallel and in order, so the
// result does not depend on the number of workers.
func Associate(ctx context.Context, s *localmap.Set, o AssociateOptions) (*Association, error) {
	if o.Tolerance == 0 {
		o.Tolerance = AutoTolerance(s)
	}
	if o.MinMatches == 0 {
		o.MinMatches = DefaultMinMatches
	}
	if o.Neighbours == 0 {
		o.Neighbours = 6
	}
	if o.MinShare == 0 {
		o.MinShare = DefaultMinShare
	}
	if o.MinPosed == 0 {
		o.MinPosed = DefaultMinPosed
	}
	if !(o.Tolerance > 0) || math.IsInf(o.Tolerance, 0) || o.MinMatches < 3 || o.Neighbours < 2 || o.MinPosed < 2 {
		return nil, fmt.Errorf("fusion: tolerance %v m, min matches %d, neighbours %d, min posed %d: want a positive tolerance, at least 3 matches, 2 neighbours and 2 posed pairings", o.Tolerance, o.MinMatches, o.Neighbours, o.MinPosed)
	}
	if math.IsNaN(o.Drift) || math.IsInf(o.Drift, 0) || !(o.TurnDrift >= 0) || math.IsInf(o.TurnDrift, 0) {
		return nil, fmt.Errorf("fusion: drift %v m/m, turn drift %v rad/m: want finite, the turn drift not negative", o.Drift, o.TurnDrift)
	}
	idx := make([]*mapIndex, len(s.Maps))
	for k := range s.Maps {
		idx[k] = newMapIndex(&s.Maps[k], o.Tolerance, o.Neighbours)
	}
	var pairs [][2]int
	for i := range idx {
		for j := i + 1; j < len(idx); j++ {
			pairs = append(pairs, [2]int{i, j})
		}
	}
	found := make([]alignment, len(pairs))
	err := pool.ForEach(ctx, len(pairs), o.Workers, o.Progress, func(k int) error {
		if f := align(idx[pairs[k][0]], idx[pairs[k][1]], o.Tolerance); len(f.matches) >= o.MinMatches && float64(len(f.matches)) >= o.MinShare*float64(f.overlap) {
			found[k] = f
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	a := &Association{Motions: map[[2]int]Motion{}, Tolerance: o.Tolerance, Gated: map[[2]int]bool{}}
	if s.Poses != nil && o.Drift >= 0 {
		if err := gatePairs(ctx, s, idx, pairs, found, &o, a); err != nil {
			return nil, err
		}
		if o.Track {
			a.TrackedPairs = addTracked(s, idx, pairs, found, o.Tolerance, a.Gated)
		}
	}
	for k, f := range found {
		if len(f.matches) == 0 {
			continue
		}
		i, j := pairs[k][0], pairs[k][1]
		a.Motions[pairs[k]] = Motion{X: f.t[0], Y: f.t[1], Theta: f.theta, Matches: len(f.matches)}
		for _, m := range f.matches {
			a.Pairings = append(a.Pairings, Pairing{I: i, A: m[0], J: j, B: m[1]})
		}
	}
	return a, nil
}

// AutoTolerance is a quarter of the median distance from a landmark to
// its nearest neighbour in its map, within [0.1, 1] metres: pairings must
// fit far more tightly than landmarks are spaced.
func AutoTolerance(s *localmap.Set) float64 {
	var nn []float64
	for _, m := range s.Maps {
		for i, a := range m.Landmarks {
			best := math.Inf(1)
			for j, b := range m.Landmarks {
				if i != j {
					best = min(best, math.Hypot(a.X-b.X, a.Y-b.Y))
				}
			}
			if !math.IsInf(best, 1) {
				nn = append(nn, best)
			}
		}
	}
	if len(nn) == 0 {
		return 1
	}
	sort.Float64s(nn)
	return min(1, max(0.1, nn[len(nn)/2]/4))
}

// mapIndex is one map ready for alignment: its points, a grid over them,
// and its triangles indexed by shape.
type mapIndex struct {
	// spacing is the median distance from a landmark to its nearest.
	spacing float64
	pts     []geom.Point
	z       []float64
	grid    *geom.Grid
	tris    []triangle
	shape   map[[3]int][]int // quantized sides → triangles
}

// triangle is three landmarks ordered by the side opposite each, shortest
// first (v[k] is opposite side s[k]).
type triangle struct {
	v [3]int
	s [3]float64
}

func newMapIndex(m *localmap.Map, tol float64, k int) *mapIndex {
	var pts []geom.Point
	var z []float64
	for _, l := range m.Landmarks {
		pts = append(pts, geom.Point{X: l.X, Y: l.Y})
		z = append(z, l.Z)
	}
	return newPointIndex(pts, z, tol, k)
}

// newPointIndex indexes points (heights z) for alignment: each point's
// triangles with two of its k nearest.
func newPointIndex(pts []geom.Point, z []float64, tol float64, k int) *mapIndex {
	x := &mapIndex{shape: map[[3]int][]int{}, pts: pts, z: z}
	x.grid = geom.NewGrid(x.pts, max(tol, 0.5))
	var nn []float64
	for i := range x.pts {
		if n := nearest(x.pts, i, 1); len(n) > 0 {
			nn = append(nn, math.Hypot(x.pts[n[0]].X-x.pts[i].X, x.pts[n[0]].Y-x.pts[i].Y))
		}
	}
	if len(nn) > 0 {
		sort.Float64s(nn)
		x.spacing = nn[len(nn)/2]
	}
	seen := map[[3]int]bool{}
	for i := range x.pts {
		nb := nearest(x.pts, i, k)
		for a := range nb {
			for b := a + 1; b < len(nb); b++ {
				v := [3]int{i, nb[a], nb[b]}
				slices.Sort(v[:])
				if seen[v] {
					continue
				}
				seen[v] = true
				if t, ok := newTriangle(x.pts, v, tol); ok {
					x.shape[t.key(tol)] = append(x.shape[t.key(tol)], len(x.tris))
					x.tris = append(x.tris, t)
				}
			}
		}
	}
	return x
}

// nearest returns the k nearest points to point i, nearest first.
func nearest(pts []geom.Point, i, k int) []int {
	idx := make([]int, 0, len(pts))
	for j := range pts {
		if j != i {
			idx = append(idx, j)
		}
	}
	d := func(j int) float64 { return math.Hypot(pts[j].X-pts[i].X, pts[j].Y-pts[i].Y) }
	sort.SliceStable(idx, func(a, b int) bool { return d(idx[a]) < d(idx[b]) })
	return idx[:min(k, len(idx))]
}

// newTriangle orders v by opposite side; ok is false for a triangle whose
// sides are too alike to order (within 2 tol) or too flat to fix a motion.
func newTriangle(pts []geom.Point, v [3]int, tol float64) (triangle, bool) {
	side := func(a, b int) float64 { return math.Hypot(pts[a].X-pts[b].X, pts[a].Y-pts[b].Y) }
	t := triangle{v: v, s: [3]float64{side(v[1], v[2]), side(v[0], v[2]), side(v[0], v[1])}}
	order := []int{0, 1, 2}
	sort.Slice(order, func(a, b int) bool { return t.s[order[a]] < t.s[order[b]] })
	t.v = [3]int{v[order[0]], v[order[1]], v[order[2]]}
	t.s = [3]float64{t.s[order[0]], t.s[order[1]], t.s[order[2]]}
	if t.s[1]-t.s[0] < 2*tol || t.s[2]-t.s[1] < 2*tol || t.s[0] < 2*tol {
		return t, false
	}
	return t, true
}

// key quantizes the sides by tol.
func (t triangle) key(tol float64) [3]int {
	return [3]int{int(t.s[0] / tol), int(t.s[1] / tol), int(t.s[2] / tol)}
}
