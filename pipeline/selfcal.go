package pipeline

import (
	"context"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// minCalibPair is the least number of exported matches of a pair whose
// rotation goes into the self-calibration.
const minCalibPair = 30

// selfCalibrate fills r.SelfCalibration (Options.SelfCalibrate): the
// camera the images share, from the tracks. The starting focal length is
// the one that makes the fundamental matrices of the verified pairs most
// nearly essential (the median of their singular-value gaps, principal
// point at the centre); each pair's rotation is its F made essential with
// that camera, refitted to its exported matches and decomposed; package
// calib does the rest.
func (r *Result) selfCalibrate(ctx context.Context) error {
	sets := r.Output()
	if len(sets) < 3 {
		r.SelfCalibration = &calib.Result{Reason: "fewer than 3 images"}
		return nil
	}
	w, h := sets[0].Width, sets[0].Height
	for _, s := range sets {
		if s.Width != w || s.Height != h {
			r.SelfCalibration = &calib.Result{Reason: "images of different sizes"}
			return nil
		}
	}
	if w <= 0 || h <= 0 {
		r.SelfCalibration = &calib.Result{Reason: "image size unknown"}
		return nil
	}
	tracks := r.tracks()
	ct := r.calibTracks(tracks, 0, 0, 0)
	pairOf := r.epipolarPairs()
	a, b := r.pairMatches(tracks, pairOf)
	keys := r.calibPairs(ct, a, pairOf, pairwise.Fundamental)
	cx, cy := float64(w-1)/2, float64(h-1)/2
	var fs [][9]float64
	for _, k := range keys {
		fs = append(fs, r.Verified[k].F)
	}
	f0 := focalFromFundamentals(fs, cx, cy, float64(max(w, h)))
	K := geom.Intrinsics{Fx: f0, Fy: f0, Cx: cx, Cy: cy}
	var rots []calib.Rotation
	for _, k := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		v := r.Verified[k]
		e := essentialOf(v.F, f0, cx, cy)
		ev := pairwise.Verified{I: v.I, J: v.J, Model: pairwise.Essential, Matrix: e}
		if nv, ok := pairwise.Refit(ev, a[k], b[k], K, K); ok {
			e = nv.Matrix
		}
		R, _, ok := pairwise.RelativePose(e, a[k], b[k], K, K)
		if !ok {
			continue
		}
		rots = append(rots, calib.Rotation{I: v.I, J: v.J, R: R, Weight: float64(len(a[k]))})
	}
	res, err := calib.Estimate(ctx, len(sets), ct, rots, calib.Options{Width: w, Height: h, Focal: f0})
	if err != nil {
		return err
	}
	r.SelfCalibration = &res
	return nil
}

// calibPairs returns the indices in r.Verified of the pairs whose
// rotations go into package calib: verified by model, with minCalibPair or
// more exported matches (a, by pair index), among the views
// calib.SelectViews takes for the tracks ct. They come in image order (I,
// then J). Only these need a rotation: on a large folder, a few dozen
// views of hundreds.
func (r *Result) calibPairs(ct [][]calib.Obs, a map[int][]geom.Point, pairOf map[[2]int]int, model pairwise.ModelKind) []int {
	var links []calib.Rotation
	for k := range a {
		if v := r.Verified[k]; len(a[k]) >= minCalibPair && v.Model == model {
			links = append(links, calib.Rotation{I: v.I, J: v.J, Weight: float64(len(a[k]))})
		}
	}
	slices.SortFunc(links, func(x, y calib.Rotation) int {
		if x.I != y.I {
			return x.I - y.I
		}
		return x.J - y.J
	})
	use := make([]bool, len(r.Sets))
	for _, v := range calib.SelectViews(calib.ObservationCounts(len(r.Sets), ct), links, 0) {
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

// essentialOf is Kᵀ F K for the camera of focal length f and principal
// point (cx, cy).
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
