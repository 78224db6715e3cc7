package tracks

import (
	"context"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// CalibrateOptions configure SelfCalibrate. The zero value is the
// default.
type CalibrateOptions struct {
	// Off skips the stage.
	Off bool
}

// minCalibPair is the least number of exported matches of a pair whose
// rotation goes into the self-calibration.
const minCalibPair = 30

// SelfCalibrate estimates the camera the images share from the tracks
// (package calib: a small structure from motion and bundle adjustment);
// it changes no track. The starting focal length is the one that makes
// the fundamental matrices of the verified pairs most nearly essential
// (the median of their singular-value gaps, principal point at the
// centre); each pair's rotation is its F made essential with that camera,
// refitted to its exported matches and decomposed. It returns nil when it
// does not run (Off, intrinsics known, or no verified pairs), and a
// Result with a Reason when the images cannot be calibrated (fewer than
// 3, or of different sizes).
func SelfCalibrate(ctx context.Context, v *Views, t Tracks, o CalibrateOptions) (*calib.Result, error) {
	if o.Off || v.Intrinsics.Known() || t.Pairs == nil {
		return nil, nil
	}
	w, h, reason := commonSize(t)
	if reason != "" {
		return &calib.Result{Reason: reason}, nil
	}
	tracks := groups(t.Item, v.offsets())
	ct := calibTracks(t, tracks, 0, 0, 0)
	pairOf := epipolarPairs(t.Pairs)
	a, b := pairMatches(v, t, tracks, pairOf)
	keys := calibPairs(t, ct, a, pairOf, pairwise.Fundamental)
	cx, cy := float64(w-1)/2, float64(h-1)/2
	var fs [][9]float64
	for _, k := range keys {
		fs = append(fs, t.Pairs[k].F)
	}
	f0 := focalFromFundamentals(fs, cx, cy, float64(max(w, h)))
	K := geom.Intrinsics{Fx: f0, Fy: f0, Cx: cx, Cy: cy}
	var rots []calib.Rotation
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if rot, ok := essentialRotation(t.Pairs[k], a[k], b[k], K); ok {
			rots = append(rots, rot)
		}
	}
	res, err := calib.Estimate(ctx, len(t.Keypoints), ct, rots, calib.Options{Width: w, Height: h, Focal: f0})
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// commonSize is the size every image shares, or why there is none.
func commonSize(t Tracks) (w, h int, reason string) {
	sets := t.Keypoints
	if len(sets) < 3 {
		return 0, 0, "fewer than 3 images"
	}
	w, h = sets[0].Width, sets[0].Height
	for _, s := range sets {
		if s.Width != w || s.Height != h {
			return 0, 0, "images of different sizes"
		}
	}
	if w <= 0 || h <= 0 {
		return 0, 0, "image size unknown"
	}
	return w, h, ""
}

// essentialRotation is pair p's F made essential with K, refitted to its
// matches a, b, and decomposed: its rotation, weighted by its matches.
func essentialRotation(p pairwise.Verified, a, b []geom.Point, K geom.Intrinsics) (calib.Rotation, bool) {
	e := essentialOf(p.F, K.Fx, K.Cx, K.Cy)
	ev := pairwise.Verified{I: p.I, J: p.J, Model: pairwise.Essential, Matrix: e}
	if nv, ok := pairwise.Refit(ev, a, b, K, K); ok {
		e = nv.Matrix
	}
	R, _, ok := pairwise.RelativePose(e, a, b, K, K)
	if !ok {
		return calib.Rotation{}, false
	}
	return calib.Rotation{I: p.I, J: p.J, R: R, Weight: float64(len(a))}, true
}

// calibTracks are the tracks of 2+ observations as package calib takes
// them, at the tracks' keypoints. With fy > 0, y is scaled about cy by
// fx/fy, so that a camera of one focal length (fx) sees them.
func calibTracks(t Tracks, tracks [][]obsRef, fx, fy, cy float64) [][]calib.Obs {
	ct := make([][]calib.Obs, 0, len(tracks))
	for _, tr := range tracks {
		if len(tr) < 2 {
			continue
		}
		obs := make([]calib.Obs, len(tr))
		for x, o := range tr {
			p := point(t.Keypoints, o)
			if fy > 0 {
				p.Y = cy + (p.Y-cy)*fx/fy
			}
			obs[x] = calib.Obs{View: o.img, X: p.X, Y: p.Y}
		}
		ct = append(ct, obs)
	}
	return ct
}

// calibPairs returns the pairs of the given model with minCalibPair or
// more matches in a between the views calib.SelectViews picks, as indices
// into t.Pairs, in image order.
func calibPairs(t Tracks, ct [][]calib.Obs, a map[int][]geom.Point, pairOf map[[2]int]int, model pairwise.ModelKind) []int {
	var links []calib.Rotation
	for k := range a {
		if p := t.Pairs[k]; len(a[k]) >= minCalibPair && p.Model == model {
			links = append(links, calib.Rotation{I: p.I, J: p.J, Weight: float64(len(a[k]))})
		}
	}
	slices.SortFunc(links, func(x, y calib.Rotation) int {
		if x.I != y.I {
			return x.I - y.I
		}
		return x.J - y.J
	})
	n := len(t.Keypoints)
	use := make([]bool, n)
	for _, v := range calib.SelectViews(calib.ObservationCounts(n, ct), links, 0) {
		use[v] = true
	}
	var keys []int
	for _, l := range links {
		if use[l.I] && use[l.J] {
			keys = append(keys, pairOf[[2]int{min(l.I, l.J), max(l.I, l.J)}])
		}
	}
	return keys
}

// essentialOf is Kᵀ F K for K of focal f and principal point (cx, cy).
func essentialOf(F [9]float64, f, cx, cy float64) [9]float64 {
	K := [9]float64{f, 0, cx, 0, f, cy, 0, 0, 1}
	return geom.Mul3(geom.Transpose3(K), geom.Mul3(F, K))
}

// focalFromFundamentals returns the focal length, on a logarithmic grid
// from 0.3 to 3 times side, at which the median over fs of the gap
// between the two largest singular values of Kᵀ F K (relative to their
// sum) is least: an essential matrix has two equal ones (Mendonça and
// Cipolla's criterion, its median for robustness). Without pairs, 1.2 ×
// side (COLMAP's prior).
func focalFromFundamentals(fs [][9]float64, cx, cy, side float64) float64 {
	if len(fs) == 0 {
		return 1.2 * side
	}
	best, bestF := math.Inf(1), 1.2*side
	gaps := make([]float64, len(fs))
	const steps = 240
	for s := 0; s <= steps; s++ {
		f := side * 0.3 * math.Pow(10, float64(s)/steps)
		n := 0
		for _, F := range fs {
			sv, ok := geom.SingularValues3(essentialOf(F, f, cx, cy))
			if !ok || sv[0]+sv[1] == 0 {
				continue
			}
			gaps[n] = (sv[0] - sv[1]) / (sv[0] + sv[1])
			n++
		}
		if n == 0 {
			continue
		}
		g := slices.Clone(gaps[:n])
		slices.Sort(g)
		med := g[n/2]
		if n%2 == 0 {
			med = (g[n/2-1] + g[n/2]) / 2
		}
		if med < best {
			best, bestF = med, f
		}
	}
	return bestF
}
