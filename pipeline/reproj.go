package pipeline

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/pairwise"
)

// DefaultReprojFilter is Options.ReprojFilter in DefaultOptions, pixels
// at detection resolution.
const DefaultReprojFilter = 1.0

// ReprojSigmas is where the reprojection filter cuts on noisy
// observations: at this many standard deviations of the residuals when
// that is more than Options.ReprojFilter. A residual's length beyond 3.5 σ
// has a probability of 0.2% for Gaussian keypoint noise; at 1 px the
// filter would take out 13% of right observations at σ = 0.5 px. On the
// ground-truth rows at 1536 px (medians 0.04–0.11 px) the 1 px cut
// applies.
const ReprojSigmas = 3.5

// ReprojStats is what the reprojection filter (Options.ReprojFilter) did.
type ReprojStats struct {
	// Views is the number of images reconstructed, Registered those
	// placed.
	Views      int `json:"views"`
	Registered int `json:"registered"`
	// Checked counts the observations that had a point to be checked
	// against, Dropped those taken out of their tracks.
	Checked int `json:"checked"`
	Dropped int `json:"dropped"`
	// Extended counts the keypoints that joined a track (Options.ReprojExtend).
	Extended int `json:"extended"`
	// Median is the checked observations' median distance from their
	// points and Threshold the cut applied, pixels at detection
	// resolution.
	Median    float64 `json:"median_px"`
	Threshold float64 `json:"threshold_px"`
	// Reason says why nothing was checked, when Checked is 0.
	Reason string `json:"reason,omitempty"`
}

// filterReprojection is the reprojection filter: the images are
// reconstructed from the tracks (with the known camera by calib.Reconstruct,
// or the self-calibration's reconstruction without one), and an
// observation more than opts.ReprojFilter pixels (detection resolution)
// from its track's point goes out of its track.
//
// The mapper takes an observation into a point within 4 px, and a few
// wrong observations between 1 and 4 px pull the cameras of sparsely tied
// photos; a match can fit every pair's epipolar geometry (along its line)
// and still miss the point the track's other views fix.
func (r *Result) filterReprojection(ctx context.Context, opts Options) error {
	if !(opts.ReprojFilter > 0) || r.Verified == nil {
		return nil
	}
	st := &r.Reproj
	tracks := r.tracks()
	var res [][]float64
	var scene *calib.Scene
	fx, fy, cy := 0.0, 0.0, 0.0
	if opts.Camera.Known() {
		var err error
		if res, scene, err = r.reconstructKnown(ctx, tracks, opts); err != nil {
			return err
		}
		fx, fy, cy = opts.Camera.Fx, opts.Camera.Fy, opts.Camera.Cy
	} else {
		sc := r.SelfCalibration
		if sc == nil {
			st.Reason = "no self-calibration"
			return nil
		}
		st.Views, st.Registered, res, scene = sc.Views, sc.Registered, sc.Residuals, sc.Scene
		if res == nil {
			st.Reason = "the self-calibration gave no reconstruction: " + sc.Reason
			return nil
		}
	}
	if res == nil {
		return nil
	}
	if m := countLong(tracks); len(res) != m {
		st.Reason = fmt.Sprintf("%d residual tracks for %d tracks", len(res), m)
		return nil
	}
	off := r.Offsets()
	// Residuals in detection pixels, per track of two or more views in
	// calibTracks's order.
	det := make([][]float64, 0, len(res))
	var all []float64
	n := 0
	for _, t := range tracks {
		if len(t) < 2 {
			continue
		}
		e := slices.Clone(res[n])
		n++
		for x, o := range t {
			if r.PixelScale != nil && !math.IsNaN(e[x]) {
				e[x] /= r.PixelScale[o.img]
			}
			if !math.IsNaN(e[x]) {
				all = append(all, e[x])
			}
		}
		det = append(det, e)
	}
	st.Checked = len(all)
	if len(all) == 0 {
		st.Reason = "no track has a point"
		return nil
	}
	// The cut is opts.ReprojFilter, or ReprojSigmas standard deviations
	// of the residuals where they are that noisy: a residual's length is
	// Rayleigh distributed, its median 1.1774 σ.
	slices.Sort(all)
	st.Median = all[len(all)/2]
	st.Threshold = max(opts.ReprojFilter, ReprojSigmas*st.Median/1.1774)
	var drop []int
	n = 0
	for _, t := range tracks {
		if len(t) < 2 {
			continue
		}
		e := det[n]
		n++
		for x, o := range t {
			if e[x] > st.Threshold { // false for NaN
				drop = append(drop, off[o.img]+o.kp)
			}
		}
	}
	var ext []extension
	if opts.ReprojExtend {
		var err error
		if ext, err = r.extendTracks(ctx, tracks, scene, st.Threshold, fx, fy, cy); err != nil {
			return err
		}
	}
	r.dropObservations(drop)
	st.Dropped = len(drop)
	r.applyExtensions(ext)
	st.Extended = len(ext)
	return nil
}

// countLong counts the tracks of two or more observations.
func countLong(tracks [][]obsRef) int {
	n := 0
	for _, t := range tracks {
		if len(t) >= 2 {
			n++
		}
	}
	return n
}

// calibTracks returns the tracks of two or more observations as calib
// observations (full-resolution pixels), in the order of tracks. fy, when
// positive, scales y about cy by fx/fy, so that a camera of two focal
// lengths becomes calib's one.
func (r *Result) calibTracks(tracks [][]obsRef, fx, fy, cy float64) [][]calib.Obs {
	sets := r.Output()
	ct := make([][]calib.Obs, 0, len(tracks))
	for _, t := range tracks {
		if len(t) < 2 {
			continue
		}
		obs := make([]calib.Obs, len(t))
		for x, o := range t {
			p := point(sets, o)
			if fy > 0 {
				p.Y = cy + (p.Y-cy)*fx/fy
			}
			obs[x] = calib.Obs{View: o.img, X: p.X, Y: p.Y}
		}
		ct = append(ct, obs)
	}
	return ct
}

// reconstructKnown reconstructs the images with the known camera: the
// rotations of the essential pairs of minCalibPair or more exported
// matches, then calib.Reconstruct. It returns the residuals of
// calibTracks's tracks and the reconstruction, nil when no image was
// placed (r.Reproj.Reason).
func (r *Result) reconstructKnown(ctx context.Context, tracks [][]obsRef, opts Options) ([][]float64, *calib.Scene, error) {
	st := &r.Reproj
	K := opts.Camera
	ct := r.calibTracks(tracks, K.Fx, K.Fy, K.Cy)
	pairOf := r.epipolarPairs()
	a, b := r.pairMatches(tracks, pairOf)
	var rots []calib.Rotation
	for _, k := range r.calibPairs(ct, a, pairOf, pairwise.Essential) {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		v := r.Verified[k]
		if R, _, ok := pairwise.RelativePose(v.Matrix, a[k], b[k], K, K); ok {
			rots = append(rots, calib.Rotation{I: v.I, J: v.J, R: R, Weight: float64(len(a[k]))})
		}
	}
	w, h := 0, 0
	for _, s := range r.Output() {
		w, h = max(w, s.Width), max(h, s.Height)
	}
	if w <= 0 || h <= 0 {
		st.Reason = "image size unknown"
		return nil, nil, nil
	}
	fit, err := calib.Reconstruct(ctx, len(r.Sets), ct, rots, calib.SimpleRadial{Focal: K.Fx, Cx: K.Cx, Cy: K.Cy}, calib.Options{Width: w, Height: h})
	if err != nil {
		return nil, nil, err
	}
	st.Views, st.Registered, st.Reason = fit.Views, fit.Registered, fit.Reason
	return fit.Residuals, fit.Scene, nil
}
