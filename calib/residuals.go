package calib

import (
	"context"
	"fmt"
	"math"
)

// Fit is a reconstruction of views whose camera is known (Reconstruct).
type Fit struct {
	// Views is the number of views used, Registered those placed.
	Views, Registered int
	// Points and Observations count the tracks and observations of the
	// final adjustment (at most Options.MaxPoints tracks).
	Points, Observations int
	// RMS is the adjustment's final reprojection error, pixels.
	RMS float64
	// Reason says why no view was placed, when Registered is 0.
	Reason string
	// Residuals has, for every input track and observation, its
	// reprojection error (see Result.Residuals); nil when Registered is 0.
	Residuals [][]float64
	// Scene holds the placed views and the tracks' points the residuals
	// were measured against; nil when Registered is 0.
	Scene *Scene
}

// Scene is a reconstruction in the input's view numbering: the placed
// views' cameras and a point for each input track that has one (as
// Residuals measured it). It lets a caller look for a track in the views
// it misses.
type Scene struct {
	m      *model // cameras only: cam, R, C, placed
	local  []int
	points [][3]float64
	has    []bool
}

// Point returns input track t's point; ok is false when it has none.
func (s *Scene) Point(t int) (X [3]float64, ok bool) {
	if s == nil || t < 0 || t >= len(s.points) || !s.has[t] {
		return X, false
	}
	return s.points[t], true
}

// Placed reports whether input view v is placed.
func (s *Scene) Placed(v int) bool {
	if s == nil || v < 0 || v >= len(s.local) {
		return false
	}
	l := s.local[v]
	return l >= 0 && s.m.placed[l]
}

// Project returns where input view v sees X, pixels (as the tracks'
// observations are given); ok is false when v is not placed or X is not
// in front of it.
func (s *Scene) Project(v int, X [3]float64) (x, y float64, ok bool) {
	if !s.Placed(v) {
		return 0, 0, false
	}
	x, y, z := s.m.project(s.local[v], X)
	if !(z > 0) || !finite2(x, y) {
		return 0, 0, false
	}
	return x, y, true
}

// Reconstruct places the views of tracks, their camera cam known and held:
// as Estimate does (rotations averaged, views placed with them held, the
// Options.MaxPoints longest tracks triangulated), then bundle adjustment
// of the poses and points only. Its Residuals give each observation's
// distance from its track's point in that reconstruction. As for
// Estimate, an unplaced reconstruction is not an error; the error is for
// bad arguments and ctx's.
func Reconstruct(ctx context.Context, views int, tracks [][]Obs, rots []Rotation, cam SimpleRadial, o Options) (Fit, error) {
	if !finiteCamera(cam) || !(cam.Focal > 0) {
		return Fit{}, fmt.Errorf("calib: camera %+v is not a camera", cam)
	}
	var fit Fit
	m, local, res, err := place(ctx, views, tracks, rots, cam, o)
	fit.Views, fit.Registered, fit.Reason = res.Views, res.Registered, res.Reason
	if err != nil || m == nil {
		return fit, err
	}
	o = o.withDefaults()
	if err := m.adjust(ctx, free{}, o.Threshold, 3); err != nil {
		return fit, err
	}
	fit.Points, fit.Observations = m.npoints(), m.nobs()
	if n := fit.Observations; n > 0 {
		fit.RMS = math.Sqrt(m.cost(m.active).plain / float64(n))
	}
	fit.Residuals, fit.Scene, err = m.residuals(ctx, tracks, local, o.Threshold)
	return fit, err
}

// residuals returns, for every input track (views numbered as in the
// input, local mapping them to the model's), each observation's
// reprojection error in pixels from the track's point: the point nearest
// the rays of its placed observations, those beyond thr left out one by
// one, worst first (as a triangulation), then moved to least squares of
// their reprojection errors. NaN where the track has no point (fewer than
// two placed views within thr, or rays within minAngle) or the view is
// not placed; +Inf behind the camera. The scene holds the cameras and
// those points.
func (m *model) residuals(ctx context.Context, tracks [][]Obs, local []int, thr float64) ([][]float64, *Scene, error) {
	out := make([][]float64, len(tracks))
	sc := &Scene{m: &model{cam: m.cam, R: m.R, C: m.C, placed: m.placed}, local: local,
		points: make([][3]float64, len(tracks)), has: make([]bool, len(tracks))}
	lm := &model{cam: m.cam, R: m.R, C: m.C, placed: m.placed, tracks: make([]track, 1), X: make([][3]float64, 1), tri: make([]bool, 1), active: make([][]bool, 1)}
	for ti, t := range tracks {
		if ti%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, nil, err
			}
		}
		res := make([]float64, len(t))
		out[ti] = res
		lt := make(track, 0, len(t))
		idx := make([]int, 0, len(t))
		seen := map[int]bool{}
		for k, ob := range t {
			res[k] = math.NaN()
			l := local[ob.View]
			if l < 0 || !m.placed[l] || seen[l] || !finite2(ob.X, ob.Y) {
				continue
			}
			seen[l] = true
			lt = append(lt, Obs{View: l, X: ob.X, Y: ob.Y})
			idx = append(idx, k)
		}
		if len(lt) < 2 {
			continue
		}
		lm.tracks[0], lm.active[0], lm.tri[0] = lt, make([]bool, len(lt)), false
		if !lm.triangulate(0, thr) {
			continue
		}
		X := lm.refinePoint(lt, lm.active[0], lm.X[0])
		sc.points[ti], sc.has[ti] = X, true
		for x, k := range idx {
			res[k] = lm.reproj(lt[x], X)
		}
	}
	return out, sc, nil
}

// refinePoint moves X to least squares of the reprojection errors of t's
// observations marked in use (Gauss–Newton, a few steps, each kept only
// when it lowers the cost).
func (m *model) refinePoint(t track, use []bool, X [3]float64) [3]float64 {
	cost := func(X [3]float64) float64 {
		s := 0.0
		for k, ob := range t {
			if use[k] {
				e := m.reproj(ob, X)
				s += e * e
			}
		}
		return s
	}
	cur := cost(X)
	for range 5 {
		var A [9]float64
		var g [3]float64
		for k, ob := range t {
			if !use[k] {
				continue
			}
			r, Jp, _, _, ok := m.jacobian(ob, X)
			if !ok {
				return X
			}
			for a := range 3 {
				for b := range 3 {
					A[3*a+b] += Jp[0][a]*Jp[0][b] + Jp[1][a]*Jp[1][b]
				}
				g[a] += Jp[0][a]*r[0] + Jp[1][a]*r[1]
			}
		}
		d, ok := solve3(A, g)
		if !ok {
			return X
		}
		next := [3]float64{X[0] - d[0], X[1] - d[1], X[2] - d[2]}
		c := cost(next)
		if !(c < cur) {
			return X
		}
		X, cur = next, c
	}
	return X
}

func finite2(x, y float64) bool {
	return !math.IsNaN(x) && !math.IsNaN(y) && !math.IsInf(x, 0) && !math.IsInf(y, 0)
}
