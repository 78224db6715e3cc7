package pipeline

import (
	"context"
	"slices"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// DefaultRotationLoops is Options.RotationLoops's default, degrees.
//
// On the 13 calibrated ground-truth rows (docs/decisions.md, 1536 px) every
// essential pair that no triangle of essential pairs closes within 2°,
// while the triangle's other two pairs close some, is 3.5–65° off its
// true rotation (15 pairs, 13–61 matches, mostly on one plane, nearly all
// of them right), and no pair more than 3° off escapes; the rotation the
// triangles give is 0.06–0.47° off the truth. At 1° pairs 1–2° off are
// caught too; at 3° a pair 2.8° off (herz-jesus 8–15 at 768 px, below)
// is not.
const DefaultRotationLoops = 2.0

// correctRotationLoops checks the rotations of the essential pairs
// against their triangles and replaces the model of each pair that
// disagrees with all of them. a and b hold each pair's matches (its
// tracks' matches that fit its model), pairOf the pairs by image pair.
// It returns the pairs whose model it replaced.
//
// A pair (i, j) is inconsistent when no triangle (i, j, k) of essential
// pairs closes within opts.RotationLoops degrees (the angle of
// R_kj R_ik R_ijᵀ) and at least one triangle fails whose other two pairs
// each close some triangle: there the fault is the pair's own. Its
// rotation is replaced by the chordal mean of R_kj R_ik over those
// triangles, and its baseline refitted to its matches with the rotation
// held (pairwise.FitBaseline); the export then keeps only its matches that
// fit the new model. The matches of such a pair are mostly right (a plane
// seen from two views fixes E's rotation loosely), but the turned E takes
// in wrong matches a few pixels off: on herz-jesus 8–15 at 768 px with K,
// four such matches in one pair of 24 moved the cameras adjusted from the
// true ones by 30 mm.
func (r *Result) correctRotationLoops(ctx context.Context, a, b map[int][]geom.Point, pairOf map[[2]int]int, opts Options) (map[int]bool, error) {
	fixed := map[int]bool{}
	tau := opts.RotationLoops
	if tau <= 0 || !opts.Camera.Known() {
		return fixed, nil
	}
	type edge struct {
		k int
		R [9]float64 // v.I to v.J
	}
	rel := map[[2]int]edge{}
	adj := map[int][]int{}
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
	for _, key := range keys {
		k := pairOf[key]
		v := r.Verified[k]
		if v.Model != pairwise.Essential || len(a[k]) < 5 {
			continue
		}
		R, _, ok := pairwise.RelativePose(v.Matrix, a[k], b[k], opts.Camera, opts.Camera)
		if !ok {
			continue
		}
		rel[key] = edge{k, R}
		adj[key[0]] = append(adj[key[0]], key[1])
		adj[key[1]] = append(adj[key[1]], key[0])
	}
	// rot is the rotation from image i's frame to j's.
	rot := func(i, j int) [9]float64 {
		e := rel[[2]int{min(i, j), max(i, j)}]
		if r.Verified[e.k].I == i {
			return e.R
		}
		return geom.Transpose3(e.R)
	}
	has := func(i, j int) bool { _, ok := rel[[2]int{min(i, j), max(i, j)}]; return ok }
	loop := func(i, j, k int) float64 {
		return geom.RotationAngle(geom.Mul3(geom.Mul3(rot(k, j), rot(i, k)), rot(j, i)))
	}
	good := map[[2]int]int{}
	for _, key := range keys {
		if _, ok := rel[key]; !ok {
			continue
		}
		i, j := key[0], key[1]
		for _, k := range adj[i] {
			if k != j && has(k, j) && loop(i, j, k) <= tau {
				good[key]++
			}
		}
	}
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, ok := rel[key]
		if !ok || good[key] > 0 {
			continue
		}
		i, j := key[0], key[1]
		var sum [9]float64
		n := 0
		for _, k := range adj[i] {
			if k == j || !has(k, j) || good[[2]int{min(i, k), max(i, k)}] == 0 || good[[2]int{min(k, j), max(k, j)}] == 0 {
				continue
			}
			p := geom.Mul3(rot(k, j), rot(i, k)) // i to j through k
			for x := range sum {
				sum[x] += p[x]
			}
			n++
		}
		if n == 0 {
			continue
		}
		R, ok := geom.NearestRotation(sum)
		if !ok {
			continue
		}
		v := r.Verified[e.k]
		if v.I != i {
			R = geom.Transpose3(R)
		}
		if nv, _, ok := pairwise.FitBaseline(v, R, a[e.k], b[e.k], opts.Camera, opts.Camera, r.Threshold(v.I, v.J)); ok {
			r.Verified[e.k] = nv
			fixed[e.k] = true
		}
	}
	return fixed, nil
}
