package tracks

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// DefaultWeakMatches is WeakOptions.Matches' default: a verified pair
// exported with fewer matches is weak.
const DefaultWeakMatches = 300

// DefaultWeakThreshold is WeakOptions.Threshold's default, pixels: a weak
// pair's refitted model is itself loose, so a tighter cut takes out right
// observations with the wrong ones (docs/decisions.md, "The weak-pair
// filter").
const DefaultWeakThreshold = 1.5

// WeakOptions configure FilterWeak. The zero value is the default.
type WeakOptions struct {
	// Off skips the weak-pair refits and the filter (rotation loops may
	// still run).
	Off bool
	// Matches: a verified pair (E or F) exported with fewer matches is
	// weak; 0 means DefaultWeakMatches.
	Matches int
	// Threshold is the Sampson distance (pixels, detection resolution)
	// off two refitted models that takes an observation out of its
	// track; 0 means DefaultWeakThreshold.
	Threshold float64
	// Loops is the rotation-loop check, which runs only with intrinsics.
	Loops LoopOptions
}

// ApplyDefaults fills the fields left 0 with the values they stand for.
func (o *WeakOptions) ApplyDefaults() {
	if o.Matches == 0 {
		o.Matches = DefaultWeakMatches
	}
	if o.Threshold == 0 {
		o.Threshold = DefaultWeakThreshold
	}
	o.Loops.ApplyDefaults()
}

// Validate reports options FilterWeak cannot use.
func (o WeakOptions) Validate() error {
	if o.Matches < 0 {
		return fmt.Errorf("tracks: weak-pair matches %d is negative", o.Matches)
	}
	if t := o.Threshold; t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("tracks: weak-pair threshold %v is not a non-negative number", t)
	}
	return o.Loops.Validate()
}

// WeakStats counts what FilterWeak did.
type WeakStats struct {
	// Pairs is the number of weak pairs whose model was refitted.
	Pairs int `json:"pairs"`
	// Dropped is the number of observations taken out of their tracks.
	Dropped int `json:"dropped"`
	// Loops is the number of essential pairs whose rotation no triangle
	// confirmed and whose model was replaced (WeakOptions.Loops).
	Loops int `json:"rotation_loops"`
}

// FilterWeak is the weak-pair filter: every verified pair (E or F) whose
// tracks give it fewer than o.Matches matches that fit its model is
// refitted to those matches at the tracks' keypoints (pairwise.Refit);
// with intrinsics, an essential pair whose rotation no triangle confirms
// gets the triangles' rotation (o.Loops). An observation of a track of 3+
// views leaves its track when it lies more than o.Threshold pixels off
// the replaced models of two or more pairs with the track's other
// observations. The new Tracks' Pairs hold the replaced models, so the
// export checks each match against them.
//
// A weak pair is where the cameras of a sweep's far ends are tied to the
// rest, and where its few wrong matches pull those cameras most; a match
// wrong along its epipolar line fits its pair's model but not the models
// of the track's other weak pairs.
func FilterWeak(ctx context.Context, v *Views, t Tracks, o WeakOptions) (Tracks, WeakStats, error) {
	o.ApplyDefaults()
	loops := !o.Loops.Off && v.Intrinsics.Known()
	if o.Off && !loops || t.Pairs == nil {
		return t, WeakStats{}, nil
	}
	tracks := groups(t.Item, v.offsets())
	pairOf := epipolarPairs(t.Pairs)
	a, b := pairMatches(v, t, tracks, pairOf)
	pairs := slices.Clone(t.Pairs)
	refit, err := refitWeak(ctx, v, pairs, a, b, o)
	if err != nil {
		return t, WeakStats{}, err
	}
	st := WeakStats{Pairs: len(refit)}
	if loops {
		fixed, err := closeRotationLoops(ctx, v, pairs, a, b, pairOf, o.Loops.Degrees)
		if err != nil {
			return t, WeakStats{}, err
		}
		for k := range fixed {
			refit[k] = true
		}
		st.Loops = len(fixed)
	}
	t.Pairs = pairs
	drop := offModels(v, t, tracks, pairOf, refit, o.Threshold)
	t.Item = withDropped(t.Item, drop)
	st.Dropped = len(drop)
	return t, st, nil
}

// refitWeak refits, in pairs, each pair with fewer than o.Matches matches
// (none when o.Off) and returns the set refitted.
func refitWeak(ctx context.Context, v *Views, pairs []pairwise.Verified, a, b map[int][]geom.Point, o WeakOptions) (map[int]bool, error) {
	refit := map[int]bool{}
	if o.Off {
		return refit, nil
	}
	var weak []int
	for k := range a {
		if len(a[k]) < o.Matches {
			weak = append(weak, k)
		}
	}
	slices.Sort(weak)
	for _, k := range weak {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if nv, ok := pairwise.Refit(pairs[k], a[k], b[k], v.Intrinsics, v.Intrinsics); ok {
			pairs[k] = nv
			refit[k] = true
		}
	}
	return refit, nil
}

// offModels returns the observations of tracks of 3+ views that lie more
// than tau pixels (detection resolution) off the models of two or more
// pairs of refit with the track's other observations.
func offModels(v *Views, t Tracks, tracks [][]obsRef, pairOf map[[2]int]int, refit map[int]bool, tau float64) []int {
	off := v.offsets()
	var drop []int
	for _, tr := range tracks {
		if len(tr) < 3 {
			continue
		}
		for _, o := range tr {
			n := 0
			for _, q := range tr {
				k, ok := pairOf[[2]int{min(o.img, q.img), max(o.img, q.img)}]
				if q.img == o.img || !ok || !refit[k] {
					continue
				}
				p := &t.Pairs[k]
				pa, pb := oriented(t.Keypoints, p, o, q)
				if pairwise.SampsonError(p.F, pa, pb) > tau*v.threshold(p.I, p.J)/v.Threshold {
					n++
				}
			}
			if n >= 2 {
				drop = append(drop, off[o.img]+o.kp)
			}
		}
	}
	return drop
}
