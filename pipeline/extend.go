package pipeline

import (
	"context"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/calib"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
)

// ExtendDistance is the largest SIFT descriptor distance (descriptor norm
// 512) of a keypoint the reprojection filter's track extension adds from
// the nearest of the track's own observations: half the norm, stricter
// than completion's 400 because the keypoint has no epipolar pair to
// answer to, only the point's projection.
const ExtendDistance = 256.0

// extension is one keypoint a track gains: track n (in the order of the
// tracks of two or more observations), its item (as it was before any
// observation left the track) and the keypoint's global index.
type extension struct {
	track, item, g int
	dist           float64
}

// extendTracks finds, for every track of two or more observations with a
// point in sc, the keypoint of each placed view the track misses that lies
// within cut pixels (detection resolution) of the point's projection, is
// in no track of two or more observations, and has a descriptor within
// ExtendDistance of one of the track's observations: the nearest such by
// descriptor. A keypoint two tracks claim goes to the nearer by descriptor
// (ties to the lower track). fy, when positive, undoes calibTracks's
// scaling of y about cy by fx/fy.
//
// Why: a track that CLEAR or a filter left short in a view still has its
// point, and a keypoint where the point projects, alike in descriptor, is
// that track's observation. A photo tied to the others by a few dozen
// tracks (a lower row of photos, a wide baseline) needs every one of them:
// the mapper registers an image from 30 or more of its keypoints that see
// triangulated points.
func (r *Result) extendTracks(ctx context.Context, tracks [][]obsRef, sc *calib.Scene, cut, fx, fy, cy float64) ([]extension, error) {
	if sc == nil || !(cut > 0) {
		return nil, nil
	}
	sets := r.Output()
	off := r.Offsets()
	// Free keypoints: in no track of two or more observations.
	var long [][]obsRef
	inLong := make([]bool, len(r.Item))
	for _, t := range tracks {
		if len(t) >= 2 {
			long = append(long, t)
			for _, o := range t {
				inLong[off[o.img]+o.kp] = true
			}
		}
	}
	free := func(g int) bool { return !inLong[g] }
	// A grid of each view's keypoints, cells of the view's cut.
	grids := make([]*geom.Grid, len(sets))
	cuts := make([]float64, len(sets))
	grid := func(v int) *geom.Grid {
		if grids[v] == nil {
			cuts[v] = cut
			if r.PixelScale != nil {
				cuts[v] *= r.PixelScale[v]
			}
			pts := make([]geom.Point, len(sets[v].Keypoints))
			for k, kp := range sets[v].Keypoints {
				pts[k] = geom.Point{X: float64(kp.X), Y: float64(kp.Y)}
			}
			grids[v] = geom.NewGrid(pts, cuts[v])
		}
		return grids[v]
	}
	type cand struct {
		track int
		o     obsRef
	}
	var cands []cand
	for n, t := range long {
		if n%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		X, ok := sc.Point(n)
		if !ok {
			continue
		}
		in := make([]bool, len(sets))
		for _, o := range t {
			in[o.img] = true
		}
		for v := range sets {
			if in[v] || !sc.Placed(v) {
				continue
			}
			x, y, ok := sc.Project(v, X)
			if !ok {
				continue
			}
			if fy > 0 {
				y = cy + (y-cy)*fy/fx
			}
			if x < 0 || y < 0 || x >= float64(sets[v].Width) || y >= float64(sets[v].Height) {
				continue
			}
			grid(v).Near(x, y, cuts[v], func(k32 int32) {
				k := int(k32)
				kp := sets[v].Keypoints[k]
				if free(off[v]+k) && math.Hypot(float64(kp.X)-x, float64(kp.Y)-y) <= cuts[v] {
					cands = append(cands, cand{n, obsRef{v, k}})
				}
			})
		}
	}
	if len(cands) == 0 {
		return nil, nil
	}
	// Descriptors of the candidates and of their tracks' observations.
	rows := make([]map[int]int, len(sets)) // view -> keypoint -> row in desc[view]
	need := func(o obsRef) {
		if rows[o.img] == nil {
			rows[o.img] = map[int]int{}
		}
		if _, ok := rows[o.img][o.kp]; !ok {
			rows[o.img][o.kp] = len(rows[o.img])
		}
	}
	for _, c := range cands {
		need(c.o)
		for _, o := range long[c.track] {
			need(o)
		}
	}
	desc := make([][]float32, len(sets))
	for v, m := range rows {
		if m == nil {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ks := make([]int, len(m))
		for k, row := range m {
			ks[row] = k
		}
		d, err := r.Sets[v].LoadRows(ks)
		if err != nil {
			return nil, err
		}
		desc[v] = d
	}
	at := func(o obsRef) []float32 {
		row := rows[o.img][o.kp]
		return desc[o.img][row*features.DescSize : (row+1)*features.DescSize]
	}
	// The best candidate of each track in each view, then the best track
	// of each keypoint.
	type tv struct{ track, view int }
	best := map[tv]extension{}
	for _, c := range cands {
		d := math.Inf(1)
		for _, o := range long[c.track] {
			d = min(d, dist(at(c.o), at(o)))
		}
		if !(d <= ExtendDistance) {
			continue
		}
		t0 := long[c.track][0]
		e := extension{track: c.track, item: r.Item[off[t0.img]+t0.kp], g: off[c.o.img] + c.o.kp, dist: d}
		k := tv{c.track, c.o.img}
		if b, ok := best[k]; !ok || d < b.dist-1e-9 || math.Abs(d-b.dist) <= 1e-9 && e.g < b.g {
			best[k] = e
		}
	}
	byKey := map[int]extension{}
	for _, e := range best {
		if b, ok := byKey[e.g]; !ok || e.dist < b.dist-1e-9 || math.Abs(e.dist-b.dist) <= 1e-9 && e.track < b.track {
			byKey[e.g] = e
		}
	}
	out := make([]extension, 0, len(byKey))
	for _, e := range byKey {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b extension) int { return a.g - b.g })
	return out, nil
}

// dist is the Euclidean distance of two descriptors.
func dist(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		d := float64(a[i] - b[i])
		s += d * d
	}
	return math.Sqrt(s)
}

// applyExtensions puts each extension's keypoint into its track's item.
func (r *Result) applyExtensions(ext []extension) {
	if len(ext) == 0 {
		return
	}
	if len(r.Item) > 0 && r.Clear != nil && len(r.Clear.Item) > 0 && &r.Item[0] == &r.Clear.Item[0] {
		r.Item = slices.Clone(r.Item)
	}
	for _, e := range ext {
		r.Item[e.g] = e.item
	}
}
