// Package calib estimates the intrinsics one camera shares over a set of
// views from their feature tracks: a small structure from motion. The
// views' rotations are averaged from the pairs' relative rotations, their
// centres registered with those rotations held and the tracks
// triangulated, and a bundle adjustment then fits cameras, points and the
// camera's focal length, principal point and radial distortion together.
//
// It exists for the principal point. Two views cannot tell a shifted
// principal point from a turned camera, so a pair's geometry leaves it
// free and an SfM engine keeps it where it starts unless told to refine
// it: COLMAP's mapper, by default, fixes it at the image centre when no
// calibration is known. A real camera's lies some pixels off (Strecha's
// benchmark camera 11 px at 1536 px), which tilts every camera by a
// fraction of a degree. Many views seen together fix it: the bundle
// adjustment finds it within a few pixels.
//
// The estimate is only accepted when the data call for it: the principal
// point fitted must explain the observations significantly better than
// the image centre (a likelihood-ratio test, Options.MinChi2) and lie
// within Options.MaxOffset of the centre.
//
// Everything here is pure Go and deterministic.
package calib

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
)

// Obs is one observation of a track: a view and a position in pixels,
// pixel centres at integer coordinates.
type Obs struct {
	View int
	X, Y float64
}

// Rotation is the relative rotation of a view pair: a point X in view I's
// camera frame is R X (plus a translation) in view J's. R is row-major.
// Weight ranks the pairs (the number of matches, say); zero counts as 1.
type Rotation struct {
	I, J   int
	R      [9]float64
	Weight float64
}

// SimpleRadial is a camera of COLMAP's SIMPLE_RADIAL model: focal length
// and principal point in pixels (pixel centres at integer coordinates) and
// the radial distortion K1 (x_d = x (1 + K1 r²) on normalized coordinates).
type SimpleRadial struct {
	Focal, Cx, Cy, K1 float64
}

// Options configure Estimate. Width and Height are required.
type Options struct {
	// Width and Height of the views, pixels.
	Width, Height int
	// Focal is the starting focal length, pixels; 0 means 1.2 × the larger
	// side (COLMAP's prior).
	Focal float64
	// MaxViews bounds the views used (those with the most track
	// observations, grown from the best connected one); 0 means 40.
	MaxViews int
	// MaxPoints bounds the tracks used (the longest first); 0 means 5000.
	MaxPoints int
	// MaxOffset is the largest distance of an accepted principal point from
	// the image centre, as a fraction of the larger side; 0 means 0.02
	// (31 px at 1536 px; Strecha's camera is 11 px off). Farther, the
	// principal point trades with the radial distortion: on sceaux-castle
	// (2832 px, calibrated principal point at the centre) the adjustment
	// puts it 117 px off with k1 = -0.175.
	MaxOffset float64
	// MinChi2 is the least improvement of the bundle adjustment's cost,
	// in units of its residual variance, that the fitted principal point
	// must give over the image centre to be accepted (a likelihood-ratio
	// test with 2 degrees of freedom); 0 means 25.
	MinChi2 float64
	// Threshold is the reprojection error, pixels, beyond which an
	// observation is left out; 0 means 4 (COLMAP's mapper's).
	Threshold float64
}

// Result is what Estimate found.
type Result struct {
	// SimpleRadial is the fitted camera. With Accepted false it is the image
	// centre's camera (the fit with the principal point held there) when
	// the adjustment ran, else the starting camera.
	Camera SimpleRadial
	// Accepted says whether Camera's principal point is to be used.
	Accepted bool
	// Reason says why not, when Accepted is false.
	Reason string
	// Views is the number of views used, Registered those the
	// reconstruction placed.
	Views, Registered int
	// Points and Observations count the triangulated tracks and their
	// observations in the final adjustment.
	Points, Observations int
	// RMS is the final reprojection error, pixels.
	RMS float64
	// Chi2 is the likelihood-ratio statistic of the fitted principal point
	// against the image centre.
	Chi2 float64
	// Residuals has, for every input track and observation, its
	// reprojection error in pixels from the track's point in the final
	// reconstruction with SimpleRadial (the fitted one when Accepted, else the
	// centre's): the point triangulated from the placed views'
	// observations within Threshold, then fitted to them by least squares.
	// NaN where the view is not placed or the track has no point (fewer
	// than two such observations, or rays too nearly parallel); +Inf
	// behind the camera. Nil when no adjustment ran.
	Residuals [][]float64 `json:"-"`
	// Scene holds that reconstruction's placed views and the tracks'
	// points (Fit.Scene); nil when Residuals is.
	Scene *Scene `json:"-"`
}

func (o Options) withDefaults() Options {
	side := float64(max(o.Width, o.Height))
	if o.Focal == 0 {
		o.Focal = 1.2 * side
	}
	if o.MaxViews == 0 {
		o.MaxViews = 40
	}
	if o.MaxPoints == 0 {
		o.MaxPoints = 5000
	}
	if o.MaxOffset == 0 {
		o.MaxOffset = 0.02
	}
	if o.MinChi2 == 0 {
		o.MinChi2 = 25
	}
	if o.Threshold == 0 {
		o.Threshold = 4
	}
	return o
}

func (o Options) validate() error {
	bad := func(name string, v float64) error {
		return fmt.Errorf("calib: %s %v is not a non-negative number", name, v)
	}
	switch {
	case o.Width <= 0 || o.Height <= 0:
		return fmt.Errorf("calib: image size %d × %d is not positive", o.Width, o.Height)
	case !(o.Focal >= 0) || math.IsInf(o.Focal, 0):
		return bad("Focal", o.Focal)
	case o.MaxViews < 0:
		return fmt.Errorf("calib: MaxViews %d is negative", o.MaxViews)
	case o.MaxPoints < 0:
		return fmt.Errorf("calib: MaxPoints %d is negative", o.MaxPoints)
	case !(o.MaxOffset >= 0) || math.IsInf(o.MaxOffset, 0):
		return bad("MaxOffset", o.MaxOffset)
	case !(o.MinChi2 >= 0) || math.IsInf(o.MinChi2, 0):
		return bad("MinChi2", o.MinChi2)
	case !(o.Threshold >= 0) || math.IsInf(o.Threshold, 0):
		return bad("Threshold", o.Threshold)
	}
	return nil
}

// ErrNoViews is returned for a view count below 1.
var ErrNoViews = errors.New("calib: no views")

// Estimate fits the shared camera of views 0..views-1 to tracks (each a
// list of observations, at most one per view) with the relative rotations
// rots as the views' starting orientations. A result that is not accepted
// is not an error: Reason says why (too few views placed, no significant
// evidence, an implausible offset). The error is for bad arguments and
// ctx's.
func Estimate(ctx context.Context, views int, tracks [][]Obs, rots []Rotation, o Options) (Result, error) {
	if err := o.validate(); err != nil {
		return Result{}, err
	}
	od := o.withDefaults()
	cx, cy := float64(o.Width-1)/2, float64(o.Height-1)/2
	start := SimpleRadial{Focal: od.Focal, Cx: cx, Cy: cy}
	m, local, res, err := place(ctx, views, tracks, rots, start, o)
	if err != nil || m == nil {
		return res, err
	}
	o = od

	// Two final adjustments from the same start: the principal point held
	// at the centre, and free. The first also serves as the start of the
	// second so that both settle in the same basin.
	if err := m.adjust(ctx, free{focal: true, k1: true}, o.Threshold, 3); err != nil {
		return res, err
	}
	m2 := m.clone()
	if err := m2.adjust(ctx, free{focal: true, pp: true, k1: true}, o.Threshold, 1); err != nil {
		return res, err
	}
	// Both costs over the same observations: those the free fit kept.
	cc := m.cost(m2.active)
	cf := m2.cost(m2.active)
	n := m2.nobs()
	res.Points, res.Observations = m2.npoints(), n
	dof := 2*n - m2.nparams()
	if dof <= 0 || cf.sq <= 0 {
		res.Reason = "too few observations for the adjustment"
		res.Camera = m.cam
		return res, nil
	}
	res.RMS = math.Sqrt(cf.plain / float64(n))
	sigma2 := cf.sq / float64(dof)
	res.Chi2 = (cc.sq - cf.sq) / sigma2
	cam := m2.cam
	off := math.Hypot(cam.Cx-cx, cam.Cy-cy)
	switch {
	case !finiteCamera(cam) || cam.Focal <= 0:
		res.Reason = "the adjustment diverged"
		res.Camera = start
	case off > o.MaxOffset*float64(max(o.Width, o.Height)):
		res.Reason = fmt.Sprintf("principal point %.1f px from the centre, beyond %.3g × the larger side", off, o.MaxOffset)
		res.Camera = m.cam
	case res.Chi2 < o.MinChi2:
		res.Reason = fmt.Sprintf("principal point not significant (chi² %.1f < %.3g)", res.Chi2, o.MinChi2)
		res.Camera = m.cam
	default:
		res.Accepted = true
		res.Camera = cam
	}
	if fin := m; finiteCamera(res.Camera) && res.Camera.Focal > 0 {
		if res.Accepted {
			fin = m2
		}
		if res.Residuals, res.Scene, err = fin.residuals(ctx, tracks, local, o.Threshold); err != nil {
			return res, err
		}
	}
	return res, nil
}

// place validates Estimate's and Reconstruct's arguments, averages the
// rotations of the selected views and places them with camera cam. The
// model is nil, with res.Reason saying why, when fewer than 3 views are
// placed; local maps input views to the model's (-1: not selected).
func place(ctx context.Context, views int, tracks [][]Obs, rots []Rotation, cam SimpleRadial, o Options) (m *model, local []int, res Result, err error) {
	if views < 1 {
		return nil, nil, Result{}, ErrNoViews
	}
	if err := o.validate(); err != nil {
		return nil, nil, Result{}, err
	}
	o = o.withDefaults()
	for _, r := range rots {
		if r.I < 0 || r.I >= views || r.J < 0 || r.J >= views || r.I == r.J {
			return nil, nil, Result{}, fmt.Errorf("calib: rotation of views %d and %d: want two views in [0, %d)", r.I, r.J, views)
		}
	}
	for ti, t := range tracks {
		for _, ob := range t {
			if ob.View < 0 || ob.View >= views {
				return nil, nil, Result{}, fmt.Errorf("calib: track %d: view %d not in [0, %d)", ti, ob.View, views)
			}
		}
	}
	res.Camera = cam

	sel := SelectViews(ObservationCounts(views, tracks), rots, o.MaxViews)
	res.Views = len(sel)
	if len(sel) < 3 {
		res.Reason = fmt.Sprintf("%d views joined by rotations, want 3", len(sel))
		return nil, nil, res, nil
	}
	local = make([]int, views)
	for i := range local {
		local[i] = -1
	}
	for k, v := range sel {
		local[v] = k
	}
	var edges []edge
	for _, r := range rots {
		i, j := local[r.I], local[r.J]
		if i < 0 || j < 0 {
			continue
		}
		w := r.Weight
		if !(w > 0) {
			w = 1
		}
		edges = append(edges, edge{i, j, r.R, w})
	}
	R, ok := averageRotations(len(sel), edges)
	if !ok {
		res.Reason = "the rotations could not be averaged"
		return nil, nil, res, nil
	}
	pts := selectTracks(tracks, local, o.MaxPoints)
	m = newModel(cam, R, pts)
	if err := m.initialize(ctx, edges, o.Threshold); err != nil {
		return nil, nil, res, err
	}
	res.Registered = m.registered()
	if res.Registered < 3 {
		res.Reason = fmt.Sprintf("%d of %d views placed, want 3", res.Registered, len(sel))
		return nil, nil, res, nil
	}
	return m, local, res, nil
}

func finiteCamera(c SimpleRadial) bool {
	for _, v := range []float64{c.Focal, c.Cx, c.Cy, c.K1} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// SelectViews returns the views Estimate uses, in increasing order: up
// to maxViews (0 means Options.MaxViews's default), grown from the view
// with the most observations (nobs, by view) along the heaviest links
// (the pairs of links, weighted by Weight; R is not read). Only views
// joined to the first by links are taken. A caller with many views can
// compute the rotations of the pairs among these only.
func SelectViews(nobs []int, links []Rotation, maxViews int) []int {
	if maxViews <= 0 {
		maxViews = Options{}.withDefaults().MaxViews
	}
	views := len(nobs)
	link := map[[2]int]float64{}
	adj := make([][]int, views)
	for _, r := range links {
		if r.I < 0 || r.J < 0 || r.I >= views || r.J >= views || r.I == r.J {
			continue
		}
		k := [2]int{min(r.I, r.J), max(r.I, r.J)}
		if _, ok := link[k]; !ok {
			adj[r.I] = append(adj[r.I], r.J)
			adj[r.J] = append(adj[r.J], r.I)
		}
		w := r.Weight
		if !(w > 0) {
			w = 1
		}
		link[k] += w
	}
	first := -1
	for v := range views {
		if len(adj[v]) > 0 && (first < 0 || nobs[v] > nobs[first]) {
			first = v
		}
	}
	if first < 0 {
		return nil
	}
	in := make([]bool, views)
	in[first] = true
	sel := []int{first}
	score := make([]float64, views)
	for len(sel) < maxViews {
		last := sel[len(sel)-1]
		for _, u := range adj[last] {
			score[u] += link[[2]int{min(u, last), max(u, last)}]
		}
		best := -1
		for v := range views {
			if !in[v] && score[v] > 0 && (best < 0 || score[v] > score[best]) {
				best = v
			}
		}
		if best < 0 {
			break
		}
		in[best] = true
		sel = append(sel, best)
	}
	slices.Sort(sel)
	return sel
}

// ObservationCounts returns the number of observations of each view in
// tracks, views 0..views-1 (others are not counted).
func ObservationCounts(views int, tracks [][]Obs) []int {
	n := make([]int, views)
	for _, t := range tracks {
		for _, ob := range t {
			if ob.View >= 0 && ob.View < views {
				n[ob.View]++
			}
		}
	}
	return n
}

// track is a track restricted to the selected views, local view indices.
type track []Obs

// selectTracks keeps the tracks with two or more observations in the
// selected views, the longest first (ties by input order), at most
// maxPoints of them, with views renumbered by local.
func selectTracks(tracks [][]Obs, local []int, maxPoints int) []track {
	var out []track
	for _, t := range tracks {
		var lt track
		seen := map[int]bool{}
		for _, ob := range t {
			l := local[ob.View]
			if l < 0 || seen[l] || math.IsNaN(ob.X) || math.IsNaN(ob.Y) || math.IsInf(ob.X, 0) || math.IsInf(ob.Y, 0) {
				continue
			}
			seen[l] = true
			lt = append(lt, Obs{View: l, X: ob.X, Y: ob.Y})
		}
		if len(lt) >= 2 {
			out = append(out, lt)
		}
	}
	slices.SortStableFunc(out, func(a, b track) int { return len(b) - len(a) })
	if len(out) > maxPoints {
		out = out[:maxPoints]
	}
	return out
}
