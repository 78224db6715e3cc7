package tracks

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/pairwise"
)

// DefaultReprojThreshold is ReprojOptions.Threshold's default, pixels at
// detection resolution.
const DefaultReprojThreshold = 1.0

// ReprojSigmas is where the filter cuts on noisy observations: at this
// many standard deviations of the residuals when that is more than
// ReprojOptions.Threshold (beyond 3.5 σ lies 0.2% of Gaussian noise).
const ReprojSigmas = 3.5

// ReprojOptions configure FilterReproj. The zero value is the default.
type ReprojOptions struct {
	// Off skips the stage.
	Off bool
	// Threshold is the least cut, pixels at detection resolution; 0 means
	// DefaultReprojThreshold.
	Threshold float64
	// NoExtend leaves the tracks' missing observations alone; by default
	// each track with a point gains the keypoint of each placed view it
	// misses that lies within the cut of the point's projection, in no
	// track, its descriptor within ExtendDistance of the track's.
	NoExtend bool
}

// ApplyDefaults fills the fields left 0 with the values they stand for.
func (o *ReprojOptions) ApplyDefaults() {
	if o.Threshold == 0 {
		o.Threshold = DefaultReprojThreshold
	}
}

// Validate reports options FilterReproj cannot use.
func (o ReprojOptions) Validate() error {
	if t := o.Threshold; t < 0 || math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("tracks: reprojection threshold %v is not a non-negative number", t)
	}
	return nil
}

// ReprojStats is what FilterReproj did.
type ReprojStats struct {
	// Views is the number of images reconstructed, Registered those
	// placed.
	Views      int `json:"views"`
	Registered int `json:"registered"`
	// Checked counts the observations that had a point to be checked
	// against, Dropped those taken out of their tracks.
	Checked int `json:"checked"`
	Dropped int `json:"dropped"`
	// Extended counts the keypoints that joined a track.
	Extended int `json:"extended"`
	// Median is the checked observations' median distance from their
	// points and Threshold the cut applied, pixels at detection
	// resolution.
	Median    float64 `json:"median_px"`
	Threshold float64 `json:"threshold_px"`
	// Reason says why nothing was checked, when Checked is 0.
	Reason string `json:"reason,omitempty"`
}

// FilterReproj is the reprojection filter: the images are reconstructed
// from the tracks (with the known intrinsics by calib.Reconstruct, or
// taken from the self-calibration sc without them), and an observation
// more than the cut (o.Threshold, or ReprojSigmas standard deviations of
// the residuals when that is more) from its track's point leaves its
// track; then tracks are extended (o.NoExtend).
//
// The mapper takes an observation into a point within 4 px, and a few
// wrong observations between 1 and 4 px pull the cameras of sparsely tied
// photos; a match can fit every pair's epipolar geometry (along its line)
// and still miss the point the track's other views fix.
func FilterReproj(ctx context.Context, v *Views, t Tracks, sc *calib.Result, o ReprojOptions) (Tracks, ReprojStats, error) {
	o.ApplyDefaults()
	var st ReprojStats
	if o.Off || t.Pairs == nil {
		return t, st, nil
	}
	tracks := groups(t.Item, v.offsets())
	fit, err := reconstruction(ctx, v, t, tracks, sc, &st)
	if err != nil || fit.residuals == nil {
		return t, st, err
	}
	if m := countLong(tracks); len(fit.residuals) != m {
		st.Reason = fmt.Sprintf("%d residual tracks for %d tracks", len(fit.residuals), m)
		return t, st, nil
	}
	det, all := detectionResiduals(v, tracks, fit.residuals)
	st.Checked = len(all)
	if len(all) == 0 {
		st.Reason = "no track has a point"
		return t, st, nil
	}
	slices.Sort(all)
	st.Median = all[len(all)/2]
	st.Threshold = max(o.Threshold, ReprojSigmas*st.Median/1.1774)
	drop := beyond(v, tracks, det, st.Threshold)
	var ext []extension
	if !o.NoExtend {
		if ext, err = extendTracks(ctx, v, t, tracks, fit, st.Threshold); err != nil {
			return t, st, err
		}
	}
	st.Dropped, st.Extended = len(drop), len(ext)
	if len(drop)+len(ext) > 0 {
		item := slices.Clone(t.Item)
		for _, g := range drop {
			item[g] = -1
		}
		for _, e := range ext {
			item[e.g] = e.item
		}
		t.Item = item
	}
	return t, st, nil
}

// fitted is a reconstruction of the tracks: each long track's residuals
// (full-resolution pixels, NaN where not checked), the scene, and the
// y scaling calibTracks applied (fy > 0: about cy by fx/fy).
type fitted struct {
	residuals  [][]float64
	scene      *calib.Scene
	fx, fy, cy float64
}

// reconstruction reconstructs the tracks with the known intrinsics, or
// takes the self-calibration's; a nil residuals means none, with
// st.Reason saying why where there is one.
func reconstruction(ctx context.Context, v *Views, t Tracks, tracks [][]obsRef, sc *calib.Result, st *ReprojStats) (fitted, error) {
	if v.Intrinsics.Known() {
		return reconstructKnown(ctx, v, t, tracks, st)
	}
	if sc == nil {
		st.Reason = "no self-calibration"
		return fitted{}, nil
	}
	st.Views, st.Registered = sc.Views, sc.Registered
	if sc.Residuals == nil {
		st.Reason = "the self-calibration gave no reconstruction: " + sc.Reason
	}
	return fitted{residuals: sc.Residuals, scene: sc.Scene}, nil
}

// reconstructKnown places the images with the known intrinsics
// (calib.Reconstruct), their rotations from the essential pairs.
func reconstructKnown(ctx context.Context, v *Views, t Tracks, tracks [][]obsRef, st *ReprojStats) (fitted, error) {
	K := v.Intrinsics
	ct := calibTracks(t, tracks, K.Fx, K.Fy, K.Cy)
	pairOf := epipolarPairs(t.Pairs)
	a, b := pairMatches(v, t, tracks, pairOf)
	var rots []calib.Rotation
	for _, k := range calibPairs(t, ct, a, pairOf, pairwise.Essential) {
		if err := ctx.Err(); err != nil {
			return fitted{}, err
		}
		p := t.Pairs[k]
		if R, _, ok := pairwise.RelativePose(p.Matrix, a[k], b[k], K, K); ok {
			rots = append(rots, calib.Rotation{I: p.I, J: p.J, R: R, Weight: float64(len(a[k]))})
		}
	}
	w, h := 0, 0
	for _, s := range t.Keypoints {
		w, h = max(w, s.Width), max(h, s.Height)
	}
	if w <= 0 || h <= 0 {
		st.Reason = "image size unknown"
		return fitted{}, nil
	}
	fit, err := calib.Reconstruct(ctx, len(v.Sets), ct, rots, calib.SimpleRadial{Focal: K.Fx, Cx: K.Cx, Cy: K.Cy}, calib.Options{Width: w, Height: h})
	if err != nil {
		return fitted{}, err
	}
	st.Views, st.Registered, st.Reason = fit.Views, fit.Registered, fit.Reason
	return fitted{residuals: fit.Residuals, scene: fit.Scene, fx: K.Fx, fy: K.Fy, cy: K.Cy}, nil
}

// detectionResiduals returns the residuals of the long tracks in pixels
// at detection resolution, and every checked one in a list.
func detectionResiduals(v *Views, tracks [][]obsRef, res [][]float64) ([][]float64, []float64) {
	det := make([][]float64, 0, len(res))
	var all []float64
	n := 0
	for _, tr := range tracks {
		if len(tr) < 2 {
			continue
		}
		e := slices.Clone(res[n])
		n++
		for x, o := range tr {
			if v.Scale != nil && !math.IsNaN(e[x]) {
				e[x] /= v.Scale[o.img]
			}
			if !math.IsNaN(e[x]) {
				all = append(all, e[x])
			}
		}
		det = append(det, e)
	}
	return det, all
}

// beyond returns the observations of long tracks whose residual in det is
// above cut (NaN never is).
func beyond(v *Views, tracks [][]obsRef, det [][]float64, cut float64) []int {
	off := v.offsets()
	var drop []int
	n := 0
	for _, tr := range tracks {
		if len(tr) < 2 {
			continue
		}
		e := det[n]
		n++
		for x, o := range tr {
			if e[x] > cut {
				drop = append(drop, off[o.img]+o.kp)
			}
		}
	}
	return drop
}

// countLong counts the tracks of two or more observations.
func countLong(tracks [][]obsRef) int {
	n := 0
	for _, tr := range tracks {
		if len(tr) >= 2 {
			n++
		}
	}
	return n
}
