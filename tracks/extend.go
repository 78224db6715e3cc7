package tracks

import (
	"context"
	"math"
	"slices"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
)

// ExtendDistance is the largest SIFT descriptor distance (descriptor norm
// 512) of a keypoint track extension adds from the nearest of the track's
// own observations: half the norm, stricter than completion's 400 because
// the keypoint has no epipolar pair to answer to, only the point's
// projection.
const ExtendDistance = 256.0

// extension is one keypoint a track gains: track n (in the order of the
// tracks of two or more observations), its item (as it was before any
// observation left the track) and the keypoint's global index.
type extension struct {
	track, item, g int
	dist           float64
}

// candidate is a free keypoint o near the projection of long track n's
// point.
type candidate struct {
	track int
	o     obsRef
}

// extendTracks finds, for every track of two or more observations with a
// point in fit, the keypoint of each placed view the track misses that
// lies within cut pixels (detection resolution) of the point's
// projection, is in no track of two or more observations, and has a
// descriptor within ExtendDistance of one of the track's observations:
// the nearest such by descriptor. A keypoint two tracks claim goes to the
// nearer by descriptor (ties to the lower track).
//
// Why: a track that CLEAR or a filter left short in a view still has its
// point, and a keypoint where the point projects, alike in descriptor, is
// that track's observation. A photo tied to the others by a few dozen
// tracks needs every one of them: the mapper registers an image from 30
// or more of its keypoints that see triangulated points.
func extendTracks(ctx context.Context, v *Views, t Tracks, tracks [][]obsRef, fit fitted, cut float64) ([]extension, error) {
	if fit.scene == nil || !(cut > 0) {
		return nil, nil
	}
	off := v.offsets()
	var long [][]obsRef
	inLong := make([]bool, len(t.Item))
	for _, tr := range tracks {
		if len(tr) >= 2 {
			long = append(long, tr)
			for _, o := range tr {
				inLong[off[o.img]+o.kp] = true
			}
		}
	}
	cands, err := projectionCandidates(ctx, v, t, long, fit, cut, func(g int) bool { return !inLong[g] })
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	desc, err := loadDescriptors(ctx, v, long, cands)
	if err != nil {
		return nil, err
	}
	return nearestExtensions(t, long, cands, desc, off), nil
}

// projectionCandidates returns the free keypoints within cut pixels
// (times the view's pixel scale) of the projection of each long track's
// point into each placed view the track misses.
func projectionCandidates(ctx context.Context, v *Views, t Tracks, long [][]obsRef, fit fitted, cut float64, free func(g int) bool) ([]candidate, error) {
	sets, off, sc := t.Keypoints, v.offsets(), fit.scene
	grids := newViewGrids(v, sets, cut)
	var cands []candidate
	for n, tr := range long {
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
		for _, o := range tr {
			in[o.img] = true
		}
		for w := range sets {
			if in[w] || !sc.Placed(w) {
				continue
			}
			x, y, ok := sc.Project(w, X)
			if !ok {
				continue
			}
			if fit.fy > 0 {
				y = fit.cy + (y-fit.cy)*fit.fy/fit.fx
			}
			if x < 0 || y < 0 || x >= float64(sets[w].Width) || y >= float64(sets[w].Height) {
				continue
			}
			r := grids.cut[w]
			grids.of(w).Near(x, y, r, func(k32 int32) {
				k := int(k32)
				kp := sets[w].Keypoints[k]
				if free(off[w]+k) && math.Hypot(float64(kp.X)-x, float64(kp.Y)-y) <= r {
					cands = append(cands, candidate{n, obsRef{w, k}})
				}
			})
		}
	}
	return cands, nil
}

// viewGrids builds a grid of each view's keypoints when first asked, cells
// of the view's cut.
type viewGrids struct {
	sets  []*features.Set
	grids []*geom.Grid
	cut   []float64
}

func newViewGrids(v *Views, sets []*features.Set, cut float64) *viewGrids {
	g := &viewGrids{sets: sets, grids: make([]*geom.Grid, len(sets)), cut: make([]float64, len(sets))}
	for w := range sets {
		g.cut[w] = cut
		if v.Scale != nil {
			g.cut[w] *= v.Scale[w]
		}
	}
	return g
}

func (g *viewGrids) of(w int) *geom.Grid {
	if g.grids[w] == nil {
		g.grids[w] = geom.NewGrid(g.sets[w].Points(), g.cut[w])
	}
	return g.grids[w]
}

// rowDescriptors are the descriptors of some keypoints per view: rows
// maps a keypoint to its row in desc.
type rowDescriptors struct {
	rows []map[int]int
	desc [][]float32
}

func (d *rowDescriptors) at(o obsRef) []float32 {
	row := d.rows[o.img][o.kp]
	return d.desc[o.img][row*features.DescSize : (row+1)*features.DescSize]
}

// loadDescriptors reads the descriptors of the candidates and of the
// observations of their tracks, each view's in one read.
func loadDescriptors(ctx context.Context, v *Views, long [][]obsRef, cands []candidate) (*rowDescriptors, error) {
	d := &rowDescriptors{rows: make([]map[int]int, len(v.Sets)), desc: make([][]float32, len(v.Sets))}
	need := func(o obsRef) {
		if d.rows[o.img] == nil {
			d.rows[o.img] = map[int]int{}
		}
		if _, ok := d.rows[o.img][o.kp]; !ok {
			d.rows[o.img][o.kp] = len(d.rows[o.img])
		}
	}
	for _, c := range cands {
		need(c.o)
		for _, o := range long[c.track] {
			need(o)
		}
	}
	for w, m := range d.rows {
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
		var err error
		if d.desc[w], err = v.Sets[w].LoadRows(ks); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// nearestExtensions keeps, per track and view, the candidate nearest the
// track by descriptor (within ExtendDistance), then per keypoint the
// nearest track; ties within 1e-9 go to the lower keypoint, then track.
func nearestExtensions(t Tracks, long [][]obsRef, cands []candidate, d *rowDescriptors, off []int) []extension {
	type trackView struct{ track, view int }
	best := map[trackView]extension{}
	for _, c := range cands {
		dist := math.Inf(1)
		for _, o := range long[c.track] {
			dist = min(dist, descDistance(d.at(c.o), d.at(o)))
		}
		if !(dist <= ExtendDistance) {
			continue
		}
		t0 := long[c.track][0]
		e := extension{track: c.track, item: t.Item[off[t0.img]+t0.kp], g: off[c.o.img] + c.o.kp, dist: dist}
		k := trackView{c.track, c.o.img}
		if b, ok := best[k]; !ok || dist < b.dist-1e-9 || math.Abs(dist-b.dist) <= 1e-9 && e.g < b.g {
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
	return out
}

// descDistance is the Euclidean distance between two descriptors.
func descDistance(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		d := float64(a[i] - b[i])
		s += d * d
	}
	return math.Sqrt(s)
}
