package calib

import (
	"context"
	"math"
	"math/rand"
	"slices"

	"github.com/clearmatch/clearmatch/geom"
	"gonum.org/v1/gonum/mat"
)

// model is a reconstruction: one camera, the views' poses (world to
// camera: x = R (X - C)), the tracks' points and which observations count.
type model struct {
	cam    SimpleRadial
	R      [][9]float64
	C      [][3]float64
	placed []bool
	tracks []track
	X      [][3]float64
	tri    []bool   // the track has a point
	active [][]bool // per track and observation: used in the adjustment
}

func newModel(cam SimpleRadial, R [][9]float64, tracks []track) *model {
	m := &model{cam: cam, R: R, C: make([][3]float64, len(R)), placed: make([]bool, len(R)),
		tracks: tracks, X: make([][3]float64, len(tracks)), tri: make([]bool, len(tracks)), active: make([][]bool, len(tracks))}
	for t := range tracks {
		m.active[t] = make([]bool, len(tracks[t]))
	}
	return m
}

func (m *model) clone() *model {
	c := *m
	c.R = slices.Clone(m.R)
	c.C = slices.Clone(m.C)
	c.placed = slices.Clone(m.placed)
	c.X = slices.Clone(m.X)
	c.tri = slices.Clone(m.tri)
	c.active = make([][]bool, len(m.active))
	for t := range m.active {
		c.active[t] = slices.Clone(m.active[t])
	}
	return &c
}

func (m *model) registered() int {
	n := 0
	for _, p := range m.placed {
		if p {
			n++
		}
	}
	return n
}

// ray is the world direction, unit length, of an observation in view v
// under the current camera (distortion ignored: it starts at zero).
func (m *model) ray(v int, x, y float64) [3]float64 {
	c := m.cam
	n := [3]float64{(x - c.Cx) / c.Focal, (y - c.Cy) / c.Focal, 1}
	d := geom.MulTVec3(m.R[v], n)
	l := geom.Norm(d)
	return [3]float64{d[0] / l, d[1] / l, d[2] / l}
}

// project returns the pixel of X in view v and its depth.
func (m *model) project(v int, X [3]float64) (px, py, z float64) {
	xc := geom.MulVec3(m.R[v], geom.Sub(X, m.C[v]))
	z = xc[2]
	u, w := xc[0]/z, xc[1]/z
	d := 1 + m.cam.K1*(u*u+w*w)
	return m.cam.Focal*d*u + m.cam.Cx, m.cam.Focal*d*w + m.cam.Cy, z
}

// reproj is the reprojection error of observation ob of point X, pixels;
// +Inf behind the camera.
func (m *model) reproj(ob Obs, X [3]float64) float64 {
	px, py, z := m.project(ob.View, X)
	if !(z > 0) {
		return math.Inf(1)
	}
	return math.Hypot(px-ob.X, py-ob.Y)
}

// minAngle is the least ray angle, degrees, at which a track is
// triangulated; minPlace the least number of triangulated tracks a view
// must see to be placed.
const (
	minAngle = 1.5
	minPlace = 12
)

// initialize places the views with their rotations held: the pair of
// views sharing the most tracks seen at minAngle or more starts, its
// baseline the direction all those tracks' rays agree with; then the view
// seeing the most triangulated tracks, its centre by a two-observation
// consensus, until none sees minPlace. Short adjustments of the poses and
// points keep the growing reconstruction straight.
func (m *model) initialize(ctx context.Context, edges []edge, thr float64) error {
	n := len(m.R)
	best, bi, bj := 0, -1, -1
	for _, e := range edges {
		i, j := min(e.i, e.j), max(e.i, e.j)
		c := 0
		for _, t := range m.tracks {
			oi, oj := find(t, i), find(t, j)
			if oi < 0 || oj < 0 {
				continue
			}
			di, dj := m.ray(i, t[oi].X, t[oi].Y), m.ray(j, t[oj].X, t[oj].Y)
			if rayAngle(di, dj) >= minAngle {
				c++
			}
		}
		if c > best || c == best && bi >= 0 && (i < bi || i == bi && j < bj) {
			best, bi, bj = c, i, j
		}
	}
	if best < 2*minPlace {
		return nil
	}
	// Baseline b ⟂ (d_i × d_j) for every shared track: the eigenvector of
	// the least eigenvalue of Σ n nᵀ.
	var S [9]float64
	for _, t := range m.tracks {
		oi, oj := find(t, bi), find(t, bj)
		if oi < 0 || oj < 0 {
			continue
		}
		c := geom.Cross(m.ray(bi, t[oi].X, t[oi].Y), m.ray(bj, t[oj].X, t[oj].Y))
		l := geom.Norm(c)
		if l < math.Sin(minAngle*math.Pi/180) {
			continue
		}
		for r := range 3 {
			for s := range 3 {
				S[3*r+s] += c[r] * c[s] / (l * l)
			}
		}
	}
	b, ok := leastEigenvector(S)
	if !ok {
		return nil
	}
	m.placed[bi], m.placed[bj] = true, true
	m.C[bi] = [3]float64{}
	m.C[bj] = b
	if front := m.triangulateAll(thr); front < minPlace {
		// The other sign puts the points behind: flip and try again.
		m.C[bj] = [3]float64{-b[0], -b[1], -b[2]}
		for t := range m.tri {
			m.tri[t] = false
			clear(m.active[t])
		}
		if m.triangulateAll(thr) < minPlace {
			m.placed[bi], m.placed[bj] = false, false
			return nil
		}
	}
	rng := rand.New(rand.NewSource(1))
	nextAdjust := 4
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		v, cnt := -1, 0
		for u := range n {
			if m.placed[u] {
				continue
			}
			c := 0
			for t, tr := range m.tracks {
				if m.tri[t] && find(tr, u) >= 0 {
					c++
				}
			}
			if c > cnt {
				v, cnt = u, c
			}
		}
		if v < 0 || cnt < minPlace || !m.place(v, rng, thr) {
			break
		}
		m.triangulateAll(thr)
		if k := m.registered(); k >= nextAdjust {
			if err := m.adjust(ctx, free{}, thr, 1); err != nil {
				return err
			}
			nextAdjust = 2 * k
		}
	}
	return nil
}

// find is the index in t of view v's observation, or -1.
func find(t track, v int) int {
	for k, ob := range t {
		if ob.View == v {
			return k
		}
	}
	return -1
}

func rayAngle(a, b [3]float64) float64 {
	return math.Atan2(geom.Norm(geom.Cross(a, b)), geom.Dot(a, b)) * 180 / math.Pi
}

// place finds view v's centre from its triangulated tracks, its rotation
// held: a centre from every sample of two observations (the point nearest
// both rays back from the tracks' points), the one most observations
// reproject within thr of, refitted to those. ok is false when fewer than
// minPlace agree.
func (m *model) place(v int, rng *rand.Rand, thr float64) bool {
	type corr struct {
		d [3]float64
		X [3]float64
		o Obs
	}
	var cs []corr
	for t, tr := range m.tracks {
		if !m.tri[t] {
			continue
		}
		if k := find(tr, v); k >= 0 {
			cs = append(cs, corr{m.ray(v, tr[k].X, tr[k].Y), m.X[t], tr[k]})
		}
	}
	if len(cs) < minPlace {
		return false
	}
	// centre is the point nearest the rays back from the points.
	centre := func(idx []int) ([3]float64, bool) {
		var ls lines
		for _, k := range idx {
			ls.add(cs[k].X, cs[k].d)
		}
		return ls.nearest()
	}
	m.placed[v] = true
	inliers := func(C [3]float64) []int {
		m.C[v] = C
		var in []int
		for k, c := range cs {
			if m.reproj(c.o, c.X) <= thr {
				in = append(in, k)
			}
		}
		return in
	}
	var best []int
	// Adaptive consensus: stop once a sample of two inliers has been drawn
	// with 99.9% confidence at the best inlier ratio so far.
	need := 200
	for it := 0; it < need; it++ {
		a := rng.Intn(len(cs))
		b := rng.Intn(len(cs) - 1)
		if b >= a {
			b++
		}
		C, ok := centre([]int{a, b})
		if !ok {
			continue
		}
		if in := inliers(C); len(in) > len(best) {
			best = in
			w := float64(len(best)) / float64(len(cs))
			if w*w >= 1 {
				need = 0
			} else if n := int(math.Ceil(math.Log(1e-3) / math.Log(1-w*w))); n < need {
				need = max(n, 10)
			}
		}
	}
	for range 3 {
		if len(best) < minPlace {
			break
		}
		C, ok := centre(best)
		if !ok {
			break
		}
		in := inliers(C)
		if len(in) < len(best) {
			m.C[v], _ = centre(best)
			break
		}
		best = in
	}
	if len(best) < minPlace {
		m.placed[v] = false
		return false
	}
	m.C[v], _ = centre(best)
	return true
}

// triangulateAll gives a point to every track with two or more placed
// views that has none, and returns how many it gave.
func (m *model) triangulateAll(thr float64) int {
	n := 0
	for t, tr := range m.tracks {
		if !m.tri[t] {
			if m.triangulate(t, thr) {
				n++
			}
			continue
		}
		// A point already made takes the observations of views placed
		// since that reproject within thr.
		for k, ob := range tr {
			if !m.active[t][k] && m.placed[ob.View] && m.reproj(ob, m.X[t]) <= thr {
				m.active[t][k] = true
			}
		}
	}
	return n
}

// triangulate fits track t's point to its placed observations (the point
// nearest their rays), dropping the worst one while some lies beyond thr;
// the point must be seen at minAngle or more and in front of every view.
func (m *model) triangulate(t int, thr float64) bool {
	tr := m.tracks[t]
	var use []int
	for k, ob := range tr {
		if m.placed[ob.View] {
			use = append(use, k)
		}
	}
	for len(use) >= 2 {
		var ls lines
		ds := make([][3]float64, len(use))
		for x, k := range use {
			d := m.ray(tr[k].View, tr[k].X, tr[k].Y)
			ds[x] = d
			ls.add(m.C[tr[k].View], d)
		}
		wide := false
		for x := range ds {
			for y := x + 1; y < len(ds) && !wide; y++ {
				wide = rayAngle(ds[x], ds[y]) >= minAngle
			}
		}
		if !wide {
			return false
		}
		X, ok := ls.nearest()
		if !ok {
			return false
		}
		worst, we := -1, thr
		for x, k := range use {
			if e := m.reproj(tr[k], X); e > we {
				worst, we = x, e
			}
		}
		if worst < 0 {
			m.X[t], m.tri[t] = X, true
			clear(m.active[t])
			for _, k := range use {
				m.active[t][k] = true
			}
			return true
		}
		use = slices.Delete(use, worst, worst+1)
	}
	return false
}

// lines accumulates the least-squares point nearest a set of lines, each
// through p along a unit d: Σ (I - d dᵀ) x = Σ (I - d dᵀ) p. A track's
// point is nearest its rays from the cameras; a camera's centre nearest
// the rays back from the points it sees.
type lines struct {
	A [9]float64
	b [3]float64
}

func (ls *lines) add(p, d [3]float64) {
	P := projector(d)
	q := geom.MulVec3(P, p)
	for x := range ls.A {
		ls.A[x] += P[x]
	}
	for x := range ls.b {
		ls.b[x] += q[x]
	}
}

func (ls *lines) nearest() ([3]float64, bool) { return solve3(ls.A, ls.b) }

// projector is I - d dᵀ for a unit d.
func projector(d [3]float64) [9]float64 {
	return [9]float64{
		1 - d[0]*d[0], -d[0] * d[1], -d[0] * d[2],
		-d[1] * d[0], 1 - d[1]*d[1], -d[1] * d[2],
		-d[2] * d[0], -d[2] * d[1], 1 - d[2]*d[2],
	}
}

// solve3 solves the symmetric 3×3 system A x = b; ok is false when A is
// near singular (its determinant within 1e-12 of the cube of its trace's
// magnitudes, a stricter test than geom.Inverse3's own).
func solve3(A [9]float64, b [3]float64) ([3]float64, bool) {
	scale := math.Abs(A[0]) + math.Abs(A[4]) + math.Abs(A[8])
	if !(math.Abs(geom.Det3(A)) > 1e-12*scale*scale*scale) {
		return [3]float64{}, false
	}
	inv, ok := geom.Inverse3(A)
	if !ok {
		return [3]float64{}, false
	}
	return geom.MulVec3(inv, b), true
}

// leastEigenvector is the unit eigenvector of the symmetric S's least
// eigenvalue.
func leastEigenvector(S [9]float64) ([3]float64, bool) {
	var eig mat.EigenSym
	if !eig.Factorize(mat.NewSymDense(3, S[:]), true) {
		return [3]float64{}, false
	}
	var V mat.Dense
	eig.VectorsTo(&V)
	x := [3]float64{V.At(0, 0), V.At(1, 0), V.At(2, 0)}
	l := geom.Norm(x)
	if !(l > 0) {
		return [3]float64{}, false
	}
	return [3]float64{x[0] / l, x[1] / l, x[2] / l}, true
}
