package pairwise

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
)

// Track completion adds to tracks the observations that matching missed:
// for a track seen in views a and b and a third view c verified with both,
// the point must lie on the epipolar lines of its observations in c (x_cᵀ
// F_ac x_a = 0 and x_cᵀ F_bc x_b = 0), so where two lines cross at a clear
// angle they fix where to look, and a keypoint there whose descriptor is
// close to the track's joins it. This is epipolar transfer (Hartley and
// Zisserman, §15.3), the pairwise form of what an SfM engine's track
// completion does with a reconstruction. Longer tracks give an incremental
// mapper more than two views per point: COLMAP's mapper ignores two-view
// tracks when it triangulates, and a view tied to the rest by few
// multi-view tracks is registered late and loosely.

// CompleteOptions configure CompleteTracks. The zero value takes every
// default.
type CompleteOptions struct {
	// Threshold is the Sampson distance, in pixels of the detection
	// resolution (scaled per view by View.PixelScale, as in Verify), that
	// a candidate may have from each epipolar line of the track's
	// observations in views verified with its own. Default 2.
	Threshold float64
	// MinAngle is the least angle, in degrees, between the two epipolar
	// lines that cross most steeply: lines nearly parallel (cameras nearly
	// in a line) fix no point. Default 10.
	MinAngle float64
	// MinLines is the least number of epipolar lines (track observations
	// in views verified with the candidate's view by F or E); at least 2,
	// the default.
	MinLines int
	// MinPairMatches is the fewest verified matches of a pair whose F
	// gives lines: an F fitted to few matches is too loose to transfer
	// through (on herz-jesus-p25 photos 8–15, a pair of 20 matches, 4 of
	// them wrong, put 39 wrong observations into one view). Default 30,
	// twice the fewest inliers of a verified pair.
	MinPairMatches int
	// MaxDistance caps the Euclidean descriptor distance between the
	// candidate and the nearest of the track's observations, in the units
	// of the descriptors given (SIFT as extracted: norm 512). Default 400.
	MaxDistance float64
	// Descriptors gives image i's descriptors (dim floats per point); it
	// is called for two images at a time. Either it or DescriptorRows
	// must be set.
	Descriptors func(i int) ([]float32, error)
	// DescriptorRows, when set, is used instead of Descriptors: it gives
	// the descriptors of the listed points of image i (dim floats each,
	// in the order of rows). Completion compares a few points per image
	// pair, so this reads len(rows) descriptors where Descriptors would
	// convert a whole image per pair.
	DescriptorRows func(i int, rows []int) ([]float32, error)
	// Progress, if set, receives the tracks done (proposing where to
	// look, from geometry alone) and their total; PairProgress, if set,
	// then receives the image pairs whose descriptors were compared and
	// their total. The two phases run at different rates (the second
	// reads descriptors), hence two counters.
	Progress, PairProgress func(done, total int)
}

// DefaultCompleteThreshold, DefaultCompleteAngle and
// DefaultCompleteDistance are CompleteOptions' defaults.
const (
	DefaultCompleteThreshold = 2
	DefaultCompleteAngle     = 10
	DefaultCompleteDistance  = 400
	// DefaultCompletePairMatches is CompleteOptions.MinPairMatches'.
	DefaultCompletePairMatches = 30
)

// WithDefaults returns o with the fields left 0 set to the values they
// stand for.
func (o CompleteOptions) WithDefaults() CompleteOptions {
	if o.Threshold == 0 {
		o.Threshold = DefaultCompleteThreshold
	}
	if o.MinAngle == 0 {
		o.MinAngle = DefaultCompleteAngle
	}
	if o.MinLines == 0 {
		o.MinLines = 2
	}
	if o.MaxDistance == 0 {
		o.MaxDistance = DefaultCompleteDistance
	}
	if o.MinPairMatches == 0 {
		o.MinPairMatches = DefaultCompletePairMatches
	}
	return o
}

// Validate reports options CompleteTracks cannot use.
func (o CompleteOptions) Validate() error {
	switch {
	case o.Threshold < 0 || math.IsNaN(o.Threshold) || math.IsInf(o.Threshold, 0):
		return fmt.Errorf("pairwise: completion threshold %v: want a finite number ≥ 0", o.Threshold)
	case o.MinAngle < 0 || o.MinAngle >= 90 || math.IsNaN(o.MinAngle):
		return fmt.Errorf("pairwise: completion angle %v: want degrees in [0, 90)", o.MinAngle)
	case o.MinLines < 0 || o.MinLines == 1:
		return fmt.Errorf("pairwise: completion lines %d: want 0 (default) or at least 2", o.MinLines)
	case o.MinPairMatches < 0:
		return fmt.Errorf("pairwise: completion pair matches %d: want ≥ 0", o.MinPairMatches)
	case o.MaxDistance < 0 || math.IsNaN(o.MaxDistance):
		return fmt.Errorf("pairwise: completion descriptor distance %v: want ≥ 0", o.MaxDistance)
	}
	return nil
}

// CompleteTracks extends the tracks in item (the track of every
// observation, numbered image by image with offsets off: observation k of
// image i is off[i]+k; −1 or a track of one observation for none) with
// observations found by epipolar transfer through the verified pairs, and
// returns the new item slice (item itself is not changed) and the number
// of observations added. Only observations in no track of two or more are
// added, each to one track, and never a second one of a view a track has:
// the tracks stay cycle consistent. The result does not depend on the
// number of cores; it is computed in track order, so an earlier track
// takes a contested keypoint.
func CompleteTracks(ctx context.Context, views []View, dim int, verified []Verified, item, off []int, opts CompleteOptions) ([]int, int, error) {
	if err := opts.Validate(); err != nil {
		return nil, 0, err
	}
	if opts.Descriptors == nil && opts.DescriptorRows == nil {
		return nil, 0, fmt.Errorf("pairwise: completion needs Descriptors or DescriptorRows")
	}
	o := opts.WithDefaults()
	n := len(views)
	if len(off) != n+1 || off[n] != len(item) {
		return nil, 0, fmt.Errorf("pairwise: completion with %d offsets for %d views and %d observations", len(off), n, len(item))
	}
	for i := range views {
		if off[i+1]-off[i] != len(views[i].Points) {
			return nil, 0, fmt.Errorf("pairwise: completion: image %d has %d points and %d observations", i, len(views[i].Points), off[i+1]-off[i])
		}
	}
	// F of every pair verified by F or E, both ways: fs[{a, c}] maps a to c.
	fs := map[[2]int][9]float64{}
	adj := make([][]int, n)
	for k := range verified {
		v := &verified[k]
		if v.Model != Fundamental && v.Model != Essential || v.I == v.J || len(v.Matches) < o.MinPairMatches {
			continue
		}
		if _, dup := fs[[2]int{v.I, v.J}]; dup {
			continue
		}
		fs[[2]int{v.I, v.J}] = v.F
		fs[[2]int{v.J, v.I}] = geom.Transpose3(v.F)
		adj[v.I] = append(adj[v.I], v.J)
		adj[v.J] = append(adj[v.J], v.I)
	}
	for i := range adj {
		sort.Ints(adj[i])
	}

	// Tracks of at least two observations, in order of first observation
	// (the order they are met in here).
	type obs struct{ view, kp int }
	byItem := map[int]int{}
	var tracks [][]obs
	size := map[int]int{}
	for _, it := range item {
		if it >= 0 {
			size[it]++
		}
	}
	inTrack := make([]bool, len(item))
	for i := 0; i < n; i++ {
		for g := off[i]; g < off[i+1]; g++ {
			it := item[g]
			if it < 0 || size[it] < 2 {
				continue
			}
			inTrack[g] = true
			t, ok := byItem[it]
			if !ok {
				t = len(tracks)
				byItem[it] = t
				tracks = append(tracks, nil)
			}
			tracks[t] = append(tracks[t], obs{i, g - off[i]})
		}
	}
	grids := make([]*geom.Grid, n)
	gridOf := func(i int) *geom.Grid {
		if grids[i] == nil {
			grids[i] = geom.NewGrid(views[i].Points, 8)
		}
		return grids[i]
	}

	// Geometry first: every (track, view) proposal with its candidates.
	type proposal struct {
		track, view int
		cands       []int32
	}
	var props []proposal
	minSin := math.Sin(o.MinAngle * math.Pi / 180)
	count := make([]int, n)
	has := make([]bool, n)
	progress := func(f func(int, int), done, total int) {
		if f != nil {
			f(done, total)
		}
	}
	for t, tr := range tracks {
		if t%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			progress(o.Progress, t, len(tracks))
		}
		for _, ob := range tr {
			has[ob.view] = true
		}
		var targets []int
		for _, ob := range tr {
			for _, c := range adj[ob.view] {
				if has[c] {
					continue
				}
				if count[c] == 0 {
					targets = append(targets, c)
				}
				count[c]++
			}
		}
		sort.Ints(targets)
		for _, c := range targets {
			nl := count[c]
			count[c] = 0
			if nl < o.MinLines {
				continue
			}
			thr := o.Threshold * pixelScale(&views[c])
			type line struct {
				l  [3]float64
				f  [9]float64
				at geom.Point
			}
			var ls []line
			for _, ob := range tr {
				f, ok := fs[[2]int{ob.view, c}]
				if !ok {
					continue
				}
				p := views[ob.view].Points[ob.kp]
				ls = append(ls, line{epipolarLine(f, p), f, p})
			}
			// The two lines that cross most steeply.
			best, bx, by := -1.0, 0, 0
			for x := range ls {
				for y := x + 1; y < len(ls); y++ {
					a, b := ls[x].l, ls[y].l
					s := math.Abs(a[0]*b[1]-a[1]*b[0]) / (math.Hypot(a[0], a[1]) * math.Hypot(b[0], b[1]))
					if s > best {
						best, bx, by = s, x, y
					}
				}
			}
			if !(best >= minSin) { // minSin > 0, so parallel lines (best 0) fail too
				continue
			}
			a, b := ls[bx].l, ls[by].l
			w := a[0]*b[1] - a[1]*b[0]
			px, py := (a[1]*b[2]-a[2]*b[1])/w, (a[2]*b[0]-a[0]*b[2])/w
			if math.IsNaN(px) || math.IsNaN(py) || math.IsInf(px, 0) || math.IsInf(py, 0) {
				continue
			}
			r := thr / best * 1.5
			var cands []int32
			gridOf(c).Near(px, py, r, func(k int32) {
				if inTrack[off[c]+int(k)] {
					return
				}
				q := views[c].Points[k]
				if math.Hypot(q.X-px, q.Y-py) > r {
					return
				}
				for _, l := range ls {
					if SampsonError(l.f, l.at, q) > thr {
						return
					}
				}
				cands = append(cands, k)
			})
			if len(cands) > 0 {
				sort.Slice(cands, func(x, y int) bool { return cands[x] < cands[y] })
				props = append(props, proposal{t, c, cands})
			}
		}
		for _, ob := range tr {
			has[ob.view] = false
		}
	}

	// Descriptor distances, one image pair at a time: for each proposal
	// the least distance of each candidate to the track's observations
	// (candidate k of proposal p in slot at[p]+k of dist).
	byPair := map[[2]int][]need{}
	at := make([]int, len(props)+1)
	for p, pr := range props {
		at[p+1] = at[p] + len(pr.cands)
		for _, ob := range tracks[pr.track] {
			key := [2]int{ob.view, pr.view}
			for k, c := range pr.cands {
				byPair[key] = append(byPair[key], need{at[p] + k, ob.kp, int(c)})
			}
		}
	}
	// Pairs in order of their first image, so that whole-image
	// Descriptors read each first image once (nearest keeps it).
	keys := make([][2]int, 0, len(byPair))
	for k := range byPair {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(x, y int) bool {
		if keys[x][0] != keys[y][0] {
			return keys[x][0] < keys[y][0]
		}
		return keys[x][1] < keys[y][1]
	})
	dist := make([]float64, at[len(props)])
	for k := range dist {
		dist[k] = math.Inf(1)
	}
	progress(o.Progress, len(tracks), len(tracks))
	progress(o.PairProgress, 0, len(keys))
	var first wholeImage
	for k, key := range keys {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		if err := o.nearest(views, dim, key, byPair[key], dist, &first); err != nil {
			return nil, 0, err
		}
		progress(o.PairProgress, k+1, len(keys))
	}

	// Accept in proposal order (track, then view): the nearest candidate,
	// if close enough and not taken by an earlier track.
	out := append([]int(nil), item...)
	added := 0
	for p, pr := range props {
		bk, bd := -1, math.Inf(1)
		for k, d := range dist[at[p]:at[p+1]] {
			if d < bd {
				bk, bd = k, d
			}
		}
		if bk < 0 || bd >= o.MaxDistance {
			continue
		}
		g := off[pr.view] + int(pr.cands[bk])
		if inTrack[g] {
			continue
		}
		ob := tracks[pr.track][0]
		out[g] = out[off[ob.view]+ob.kp]
		inTrack[g] = true
		added++
	}
	return out, added, nil
}

// need asks for the descriptor distance of point a of a pair's first
// image and point c of its second, to keep the least in slot.
type need struct{ slot, a, c int }

// wholeImage is the last first image of a pair whose whole descriptors
// nearest read with Descriptors.
type wholeImage struct {
	i int
	d []float32
}

// nearest lowers dist[slot] to the descriptor distance of each need of the
// image pair key, reading the two images' descriptors once each: only the
// points needed with DescriptorRows, the whole images with Descriptors
// (the first image's kept in first, for the next pair that starts with it).
func (o *CompleteOptions) nearest(views []View, dim int, key [2]int, needs []need, dist []float64, first *wholeImage) error {
	a, c := key[0], key[1]
	var fa, fc []float32
	ia, ic := func(r int) int { return r }, func(r int) int { return r }
	var err error
	if o.DescriptorRows != nil {
		ra, ma := distinctRows(needs, func(n need) int { return n.a })
		rc, mc := distinctRows(needs, func(n need) int { return n.c })
		if fa, err = o.DescriptorRows(a, ra); err != nil {
			return err
		}
		if fc, err = o.DescriptorRows(c, rc); err != nil {
			return err
		}
		if len(fa) != len(ra)*dim || len(fc) != len(rc)*dim {
			return fmt.Errorf("pairwise: completion: descriptors of images %d and %d do not match the points asked for", a, c)
		}
		ia, ic = func(r int) int { return ma[r] }, func(r int) int { return mc[r] }
	} else {
		if first.d == nil || first.i != a {
			if first.d, err = o.Descriptors(a); err != nil {
				return err
			}
			first.i = a
		}
		fa = first.d
		if fc, err = o.Descriptors(c); err != nil {
			return err
		}
		if len(fa) != len(views[a].Points)*dim || len(fc) != len(views[c].Points)*dim {
			return fmt.Errorf("pairwise: completion: descriptors of images %d and %d do not match their points", a, c)
		}
	}
	for _, n := range needs {
		x, y := ia(n.a), ic(n.c)
		if d := math.Sqrt(float64(sqDist(fa[x*dim:(x+1)*dim], fc[y*dim:(y+1)*dim]))); d < dist[n.slot] {
			dist[n.slot] = d
		}
	}
	return nil
}

// distinctRows returns the distinct points of needs that of picks,
// ascending, and where each is among them.
func distinctRows(needs []need, of func(need) int) ([]int, map[int]int) {
	at := make(map[int]int, len(needs))
	var rows []int
	for _, n := range needs {
		if _, ok := at[of(n)]; !ok {
			at[of(n)] = 0
			rows = append(rows, of(n))
		}
	}
	sort.Ints(rows)
	for k, r := range rows {
		at[r] = k
	}
	return rows, at
}
