package pipeline

import (
	"context"
	"slices"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// WeakStats counts what the weak-pair filter (Options.WeakPairs) did.
type WeakStats struct {
	// Pairs is the number of weak pairs whose model was refitted.
	Pairs int `json:"pairs"`
	// Dropped is the number of observations taken out of their tracks.
	Dropped int `json:"dropped"`
	// Loops is the number of essential pairs whose rotation no triangle
	// confirmed and whose model was replaced (Options.RotationLoops).
	Loops int `json:"rotation_loops"`
}

// DefaultWeakPairs is Options.WeakPairs in DefaultOptions: a verified
// pair exported with fewer matches is weak.
const DefaultWeakPairs = 300

// DefaultWeakThreshold is Options.WeakThreshold's default, pixels. A weak
// pair's refitted model is itself loose (few matches, often a narrow
// spread over the image), so 1 px takes out right observations with the
// wrong ones: on herz-jesus-p25 with K, 54% of the matches the filter took
// out at 1 px lay within 1 px of the true geometry. Over 12 calibrated
// ground-truth rows, the mapper started from six pairs each (docs/decisions.md,
// "Over the mapper's initial pairs"), 1.5 px keeps every row at or near
// the default's without the filter but one, which it halves (every 4th
// herz-jesus photo, 11.6 -> 7.4 mm); 1 px fixes that row (4.4 mm) but sends
// every 3rd photo from 4.5 to 15.6 mm from four starts of six; 2 px
// changes nothing (11.5 mm).
const DefaultWeakThreshold = 1.5

// filterWeakPairs is the weak-pair filter: every verified pair (E or F)
// whose tracks give it fewer than opts.WeakPairs matches that fit its
// model is refitted to those matches at the refined keypoints
// (pairwise.Refit), and an observation of a track of 3+ views goes out of
// its track when it lies more than opts.WeakThreshold pixels (Sampson
// distance, detection resolution) off the refitted models of two or more
// such pairs with the track's other observations. The refitted models
// replace the pairs' verified ones, so the export's check of each match
// against its pair's model uses them.
//
// A weak pair is where the cameras of a sweep's far ends are tied to the
// rest, and where its wrong matches, few among few, pull those cameras
// most; a match wrong along its epipolar line fits the pair's model but
// not the models of the track's other weak pairs.
func (r *Result) filterWeakPairs(ctx context.Context, opts Options) error {
	loops := opts.RotationLoops > 0 && opts.Camera.Known()
	if opts.WeakPairs <= 0 && !loops || r.Verified == nil {
		return nil
	}
	tau := opts.WeakThreshold
	if tau == 0 {
		tau = DefaultWeakThreshold
	}
	sets, off := r.Output(), r.Offsets()
	tracks := r.tracks()
	pairOf := r.epipolarPairs()
	a, b := r.pairMatches(tracks, pairOf)
	refit := map[int]bool{}
	var weak []int
	for k := range a {
		if len(a[k]) < opts.WeakPairs {
			weak = append(weak, k)
		}
	}
	slices.Sort(weak)
	for _, k := range weak {
		if err := ctx.Err(); err != nil {
			return err
		}
		// Keypoints and Camera are both in full-resolution pixels.
		if nv, ok := pairwise.Refit(r.Verified[k], a[k], b[k], opts.Camera, opts.Camera); ok {
			r.Verified[k] = nv
			refit[k] = true
		}
	}
	r.Weak.Pairs = len(refit)
	fixed, err := r.correctRotationLoops(ctx, a, b, pairOf, opts)
	if err != nil {
		return err
	}
	for k := range fixed {
		refit[k] = true
	}
	r.Weak.Loops = len(fixed)
	var drop []int
	for _, t := range tracks {
		if len(t) < 3 {
			continue
		}
		for _, o := range t {
			n := 0
			for _, q := range t {
				k, ok := pairOf[[2]int{min(o.img, q.img), max(o.img, q.img)}]
				if q.img == o.img || !ok || !refit[k] {
					continue
				}
				v := &r.Verified[k]
				pa, pb := oriented(sets, v, o, q)
				if pairwise.SampsonError(v.F, pa, pb) > tau*r.Threshold(v.I, v.J)/r.PixelThreshold {
					n++
				}
			}
			if n >= 2 {
				drop = append(drop, off[o.img]+o.kp)
			}
		}
	}
	r.dropObservations(drop)
	r.Weak.Dropped = len(drop)
	return nil
}

// dropObservations takes the observations drop (global indices) out of
// their tracks, first copying r.Item when it is still CLEAR's own, which
// stays as CLEAR left it.
func (r *Result) dropObservations(drop []int) {
	if len(drop) == 0 {
		return
	}
	if len(r.Item) > 0 && r.Clear != nil && len(r.Clear.Item) > 0 && &r.Item[0] == &r.Clear.Item[0] {
		r.Item = slices.Clone(r.Item)
	}
	for _, g := range drop {
		r.Item[g] = -1
	}
}

// epipolarPairs maps each image pair (lower index first) verified by an
// essential or fundamental matrix to its index in r.Verified.
func (r *Result) epipolarPairs() map[[2]int]int {
	pairOf := map[[2]int]int{}
	for k, v := range r.Verified {
		if v.Model == pairwise.Essential || v.Model == pairwise.Fundamental {
			pairOf[[2]int{min(v.I, v.J), max(v.I, v.J)}] = k
		}
	}
	return pairOf
}

// pairMatches returns the matches each pair of pairOf is exported with:
// its tracks' matches that fit its model, at the output keypoints, as
// (v.I's, v.J's) points by index in r.Verified.
func (r *Result) pairMatches(tracks [][]obsRef, pairOf map[[2]int]int) (a, b map[int][]geom.Point) {
	sets := r.Output()
	a = map[int][]geom.Point{}
	b = map[int][]geom.Point{}
	for _, t := range tracks {
		for x := range t {
			for y := x + 1; y < len(t); y++ {
				k, ok := pairOf[[2]int{min(t[x].img, t[y].img), max(t[x].img, t[y].img)}]
				if !ok {
					continue
				}
				v := &r.Verified[k]
				pa, pb := oriented(sets, v, t[x], t[y])
				if v.Agrees(pa, pb, r.Threshold(v.I, v.J)) {
					a[k], b[k] = append(a[k], pa), append(b[k], pb)
				}
			}
		}
	}
	return a, b
}

// point is observation o's keypoint in sets.
func point(sets []*features.Set, o obsRef) geom.Point {
	kp := sets[o.img].Keypoints[o.kp]
	return geom.Point{X: float64(kp.X), Y: float64(kp.Y)}
}

// oriented returns the keypoints of o and q, two observations in v's
// images, as (v.I's, v.J's).
func oriented(sets []*features.Set, v *pairwise.Verified, o, q obsRef) (geom.Point, geom.Point) {
	if o.img == v.I {
		return point(sets, o), point(sets, q)
	}
	return point(sets, q), point(sets, o)
}
