package tracks

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// DefaultLoopDegrees is LoopOptions.Degrees' default: on the calibrated
// ground-truth scenes every pair it flags was degrees off its true
// rotation and none more than 3° off escaped (docs/decisions.md, "The
// rotation-loop check").
const DefaultLoopDegrees = 2.0

// LoopOptions configure the rotation-loop check of FilterWeak. The zero
// value is the default.
type LoopOptions struct {
	// Off skips the check.
	Off bool
	// Degrees within which a triangle of essential pairs must close; 0
	// means DefaultLoopDegrees.
	Degrees float64
}

// ApplyDefaults fills the fields left 0 with the values they stand for.
func (o *LoopOptions) ApplyDefaults() {
	if o.Degrees == 0 {
		o.Degrees = DefaultLoopDegrees
	}
}

// Validate reports options the check cannot use.
func (o LoopOptions) Validate() error {
	if t := o.Degrees; t < 0 || t >= 180 || math.IsNaN(t) {
		return fmt.Errorf("tracks: rotation loops %v is not an angle in [0, 180) degrees", t)
	}
	return nil
}

// rotationGraph holds the relative rotations of the essential pairs with
// 5+ matches: rel by (lower, higher) image pair, adj the neighbours of
// each image, keys the pairs in order.
type rotationGraph struct {
	pairs []pairwise.Verified
	rel   map[[2]int]relRotation
	adj   map[int][]int
	keys  [][2]int
}

// relRotation is pair k's rotation from its image I to its image J.
type relRotation struct {
	k int
	R [9]float64
}

func newRotationGraph(v *Views, pairs []pairwise.Verified, a, b map[int][]geom.Point, pairOf map[[2]int]int) *rotationGraph {
	g := &rotationGraph{pairs: pairs, rel: map[[2]int]relRotation{}, adj: map[int][]int{}}
	keys := make([][2]int, 0, len(pairOf))
	for key := range pairOf {
		keys = append(keys, key)
	}
	slices.SortFunc(keys, func(x, y [2]int) int {
		if x[0] != y[0] {
			return x[0] - y[0]
		}
		return x[1] - y[1]
	})
	g.keys = keys
	for _, key := range keys {
		k := pairOf[key]
		p := pairs[k]
		if p.Model != pairwise.Essential || len(a[k]) < 5 {
			continue
		}
		R, _, ok := pairwise.RelativePose(p.Matrix, a[k], b[k], v.Intrinsics, v.Intrinsics)
		if !ok {
			continue
		}
		g.rel[key] = relRotation{k, R}
		g.adj[key[0]] = append(g.adj[key[0]], key[1])
		g.adj[key[1]] = append(g.adj[key[1]], key[0])
	}
	return g
}

// rot is the rotation from image i to image j.
func (g *rotationGraph) rot(i, j int) [9]float64 {
	e := g.rel[[2]int{min(i, j), max(i, j)}]
	if g.pairs[e.k].I == i {
		return e.R
	}
	return geom.Transpose3(e.R)
}

func (g *rotationGraph) has(i, j int) bool {
	_, ok := g.rel[[2]int{min(i, j), max(i, j)}]
	return ok
}

// loop is the angle (degrees) by which the triangle i → k → j → i fails
// to close.
func (g *rotationGraph) loop(i, j, k int) float64 {
	return geom.RotationAngle(geom.Mul3(geom.Mul3(g.rot(k, j), g.rot(i, k)), g.rot(j, i)))
}

// confirmed counts, per pair, the triangles that close within tau degrees.
func (g *rotationGraph) confirmed(tau float64) map[[2]int]int {
	good := map[[2]int]int{}
	for _, key := range g.keys {
		if _, ok := g.rel[key]; !ok {
			continue
		}
		i, j := key[0], key[1]
		for _, k := range g.adj[i] {
			if k != j && g.has(k, j) && g.loop(i, j, k) <= tau {
				good[key]++
			}
		}
	}
	return good
}

// throughTriangles is the chordal mean of the rotations from i to j
// through each k whose pairs (i, k) and (k, j) are both confirmed.
func (g *rotationGraph) throughTriangles(i, j int, good map[[2]int]int) ([9]float64, bool) {
	var sum [9]float64
	n := 0
	for _, k := range g.adj[i] {
		if k == j || !g.has(k, j) || good[[2]int{min(i, k), max(i, k)}] == 0 || good[[2]int{min(k, j), max(k, j)}] == 0 {
			continue
		}
		p := geom.Mul3(g.rot(k, j), g.rot(i, k)) // i to j through k
		for x := range sum {
			sum[x] += p[x]
		}
		n++
	}
	if n == 0 {
		return sum, false
	}
	return geom.NearestRotation(sum)
}

// closeRotationLoops checks the rotations of the essential pairs against
// their triangles and, in pairs, replaces the model of each pair that no
// triangle confirms within tau degrees while some triangle through
// confirmed pairs gives another: its rotation becomes the chordal mean of
// those triangles' and its baseline is refitted to its matches a, b with
// the rotation held (pairwise.FitBaseline). It returns the pairs replaced.
//
// The matches of such a pair are mostly right (a plane seen from two views
// fixes E's rotation loosely), but the turned E takes in wrong matches a
// few pixels off, which pull the cameras.
func closeRotationLoops(ctx context.Context, v *Views, pairs []pairwise.Verified, a, b map[int][]geom.Point, pairOf map[[2]int]int, tau float64) (map[int]bool, error) {
	fixed := map[int]bool{}
	g := newRotationGraph(v, pairs, a, b, pairOf)
	good := g.confirmed(tau)
	for _, key := range g.keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, ok := g.rel[key]
		if !ok || good[key] > 0 {
			continue
		}
		R, ok := g.throughTriangles(key[0], key[1], good)
		if !ok {
			continue
		}
		p := pairs[e.k]
		if p.I != key[0] {
			R = geom.Transpose3(R)
		}
		if nv, _, ok := pairwise.FitBaseline(p, R, a[e.k], b[e.k], v.Intrinsics, v.Intrinsics, v.threshold(p.I, p.J)); ok {
			pairs[e.k] = nv
			fixed[e.k] = true
		}
	}
	return fixed, nil
}
