package tracks

import (
	"context"
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pairwise"
)

// completion is one run of Complete: the images' keypoints as extracted,
// the epipolar geometry of the pairs that give lines, and the tracks of
// two or more observations.
type completion struct {
	v   *Views
	o   CompleteOptions
	off []int
	pts [][]geom.Point
	// fs maps (a, c) to the F that maps image a to image c, for every
	// pair verified by F or E with MinPairMatches or more matches; adj
	// lists each image's such neighbours, ascending.
	fs  map[[2]int][9]float64
	adj [][]int
	// tracks are the tracks of 2+ observations in order of first
	// observation; inTrack marks their observations.
	tracks  [][]obsRef
	inTrack []bool
	grids   []*geom.Grid
}

// proposal is where one track may gain an observation: in view, one of
// cands (keypoint indices, ascending).
type proposal struct {
	track, view int
	cands       []int32
}

func newCompletion(v *Views, t Tracks, o CompleteOptions) *completion {
	n := len(v.Sets)
	c := &completion{v: v, o: o, off: v.offsets(), pts: make([][]geom.Point, n), fs: map[[2]int][9]float64{}, adj: make([][]int, n), grids: make([]*geom.Grid, n)}
	for i, s := range v.Sets {
		c.pts[i] = s.Points()
	}
	for k := range t.Pairs {
		p := &t.Pairs[k]
		if p.Model != pairwise.Fundamental && p.Model != pairwise.Essential || p.I == p.J || len(p.Matches) < o.MinPairMatches {
			continue
		}
		if _, dup := c.fs[[2]int{p.I, p.J}]; dup {
			continue
		}
		c.fs[[2]int{p.I, p.J}] = p.F
		c.fs[[2]int{p.J, p.I}] = geom.Transpose3(p.F)
		c.adj[p.I] = append(c.adj[p.I], p.J)
		c.adj[p.J] = append(c.adj[p.J], p.I)
	}
	for i := range c.adj {
		sort.Ints(c.adj[i])
	}
	c.longTracks(t.Item)
	return c
}

// longTracks collects the tracks of two or more observations of item.
func (c *completion) longTracks(item []int) {
	size := map[int]int{}
	for _, it := range item {
		if it >= 0 {
			size[it]++
		}
	}
	byItem := map[int]int{}
	c.inTrack = make([]bool, len(item))
	for i := range c.pts {
		for g := c.off[i]; g < c.off[i+1]; g++ {
			it := item[g]
			if it < 0 || size[it] < 2 {
				continue
			}
			c.inTrack[g] = true
			t, ok := byItem[it]
			if !ok {
				t = len(c.tracks)
				byItem[it] = t
				c.tracks = append(c.tracks, nil)
			}
			c.tracks[t] = append(c.tracks[t], obsRef{i, g - c.off[i]})
		}
	}
}

// grid is image i's keypoint grid, built when first asked for.
func (c *completion) grid(i int) *geom.Grid {
	if c.grids[i] == nil {
		c.grids[i] = geom.NewGrid(c.pts[i], 8)
	}
	return c.grids[i]
}

// propose finds, from geometry alone, every (track, view) with candidate
// keypoints, in track order, then view order.
func (c *completion) propose(ctx context.Context) ([]proposal, error) {
	progress := c.v.progress(StageComplete)
	n := len(c.pts)
	count, has := make([]int, n), make([]bool, n)
	var props []proposal
	for t, tr := range c.tracks {
		if t%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if progress != nil {
				progress(t, len(c.tracks))
			}
		}
		for _, ob := range tr {
			has[ob.img] = true
		}
		for _, view := range c.targets(tr, count, has) {
			if cands := c.candidates(tr, view); len(cands) > 0 {
				props = append(props, proposal{t, view, cands})
			}
		}
		for _, ob := range tr {
			has[ob.img] = false
		}
	}
	if progress != nil {
		progress(len(c.tracks), len(c.tracks))
	}
	return props, nil
}

// targets are the views the track misses (has false) with MinLines or
// more of its observations in views linked to them, ascending; count is
// scratch, left zero.
func (c *completion) targets(tr []obsRef, count []int, has []bool) []int {
	var targets []int
	for _, ob := range tr {
		for _, v := range c.adj[ob.img] {
			if has[v] {
				continue
			}
			if count[v] == 0 {
				targets = append(targets, v)
			}
			count[v]++
		}
	}
	sort.Ints(targets)
	var out []int
	for _, v := range targets {
		if count[v] >= c.o.MinLines {
			out = append(out, v)
		}
		count[v] = 0
	}
	return out
}

// epipolar is the line in the target view of one track observation: l
// under F f from the observation at.
type epipolar struct {
	l  [3]float64
	f  [9]float64
	at geom.Point
}

// candidates returns the free keypoints of view near where the two most
// steeply crossing epipolar lines of the track cross, within Threshold of
// every line, ascending.
func (c *completion) candidates(tr []obsRef, view int) []int32 {
	thr := c.o.Threshold
	if c.v.Scale != nil && c.v.Scale[view] > 0 {
		thr *= c.v.Scale[view]
	}
	var ls []epipolar
	for _, ob := range tr {
		f, ok := c.fs[[2]int{ob.img, view}]
		if !ok {
			continue
		}
		p := c.pts[ob.img][ob.kp]
		ls = append(ls, epipolar{pairwise.EpipolarLine(f, p), f, p})
	}
	px, py, sin, ok := steepestCrossing(ls, math.Sin(c.o.MinAngle*math.Pi/180))
	if !ok {
		return nil
	}
	r := thr / sin * 1.5
	var cands []int32
	c.grid(view).Near(px, py, r, func(k int32) {
		if c.inTrack[c.off[view]+int(k)] {
			return
		}
		q := c.pts[view][k]
		if math.Hypot(q.X-px, q.Y-py) > r {
			return
		}
		for _, l := range ls {
			if pairwise.SampsonError(l.f, l.at, q) > thr {
				return
			}
		}
		cands = append(cands, k)
	})
	sort.Slice(cands, func(x, y int) bool { return cands[x] < cands[y] })
	return cands
}

// steepestCrossing is where the two lines of ls that cross most steeply
// meet, and the sine of their angle; ok is false when no two cross at
// minSin or more (parallel lines, sine 0, never do) or they meet at
// infinity.
func steepestCrossing(ls []epipolar, minSin float64) (px, py, sin float64, ok bool) {
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
	if !(best >= minSin) {
		return 0, 0, 0, false
	}
	a, b := ls[bx].l, ls[by].l
	w := a[0]*b[1] - a[1]*b[0]
	px, py = (a[1]*b[2]-a[2]*b[1])/w, (a[2]*b[0]-a[0]*b[2])/w
	if math.IsNaN(px) || math.IsNaN(py) || math.IsInf(px, 0) || math.IsInf(py, 0) {
		return 0, 0, 0, false
	}
	return px, py, best, true
}

// need asks for the descriptor distance of keypoint a of a pair's first
// image and keypoint c of its second, to keep the least in slot.
type need struct{ slot, a, c int }

// distances returns, for candidate k of proposal p in slot at(p)+k, its
// least descriptor distance to the track's observations, comparing one
// image pair at a time (reading only the keypoints needed).
func (c *completion) distances(ctx context.Context, props []proposal) ([]float64, error) {
	byPair := map[[2]int][]need{}
	slot := 0
	for _, pr := range props {
		for _, ob := range c.tracks[pr.track] {
			key := [2]int{ob.img, pr.view}
			for k, cand := range pr.cands {
				byPair[key] = append(byPair[key], need{slot + k, ob.kp, int(cand)})
			}
		}
		slot += len(pr.cands)
	}
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
	dist := make([]float64, slot)
	for k := range dist {
		dist[k] = math.Inf(1)
	}
	progress := c.v.progress(StageCompletePairs)
	for k, key := range keys {
		if progress != nil {
			progress(k, len(keys))
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := c.nearest(key, byPair[key], dist); err != nil {
			return nil, err
		}
	}
	if progress != nil {
		progress(len(keys), len(keys))
	}
	return dist, nil
}

// nearest lowers dist[slot] to the descriptor distance of each need of
// the image pair key, reading only the keypoints needed of each image.
func (c *completion) nearest(key [2]int, needs []need, dist []float64) error {
	const dim = features.DescSize
	ra, ma := distinctRows(needs, func(n need) int { return n.a })
	rc, mc := distinctRows(needs, func(n need) int { return n.c })
	fa, err := c.v.Sets[key[0]].LoadRows(ra)
	if err != nil {
		return err
	}
	fc, err := c.v.Sets[key[1]].LoadRows(rc)
	if err != nil {
		return err
	}
	for _, n := range needs {
		x, y := ma[n.a], mc[n.c]
		if d := math.Sqrt(float64(pairwise.SquaredDistance(fa[x*dim:(x+1)*dim], fc[y*dim:(y+1)*dim]))); d < dist[n.slot] {
			dist[n.slot] = d
		}
	}
	return nil
}

// distinctRows returns the distinct keypoints of needs that of picks,
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

// accept returns item with, in proposal order (track, then view), each
// proposal's nearest candidate in its track when within MaxDistance and
// not taken by an earlier track, and the number added.
func (c *completion) accept(item []int, props []proposal, dist []float64) ([]int, int) {
	out := append([]int(nil), item...)
	added, slot := 0, 0
	for _, pr := range props {
		d := dist[slot : slot+len(pr.cands)]
		slot += len(pr.cands)
		bk, bd := -1, math.Inf(1)
		for k, x := range d {
			if x < bd {
				bk, bd = k, x
			}
		}
		if bk < 0 || bd >= c.o.MaxDistance {
			continue
		}
		g := c.off[pr.view] + int(pr.cands[bk])
		if c.inTrack[g] {
			continue
		}
		ob := c.tracks[pr.track][0]
		out[g] = out[c.off[ob.img]+ob.kp]
		c.inTrack[g] = true
		added++
	}
	return out, added
}
