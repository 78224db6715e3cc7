package fusion

import (
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
)

// alignment is the rigid motion that maps the most of one map's
// landmarks (b) onto another's (a) within the tolerance, and those
// pairings (a's landmark, b's), one-to-one.
type alignment struct {
	theta   float64
	t       [2]float64
	matches [][2]int
	// overlap counts b's landmarks that land among a's (within twice a's
	// landmark spacing of one), paired or not.
	overlap int
	// proposals (alignByEdges only) counts the motions tried: the
	// chances of finding the pairings by chance. runnerUp is the most
	// pairings of a motion that moves a landmark over two tolerances
	// from where this one puts it.
	proposals, runnerUp int
}

// apply maps a point of b's frame into a's.
func (al *alignment) apply(p geom.Point) geom.Point {
	s, c := math.Sincos(al.theta)
	return geom.Point{X: c*p.X - s*p.Y + al.t[0], Y: s*p.X + c*p.Y + al.t[1]}
}

// then is the motion al after n (n first), without pairings.
func (al alignment) then(n alignment) alignment {
	p := al.apply(geom.Point{X: n.t[0], Y: n.t[1]})
	return alignment{theta: al.theta + n.theta, t: [2]float64{p.X, p.Y}}
}

// inverse is the motion that undoes al (a's frame into b's), without
// pairings.
func (al alignment) inverse() alignment {
	s, c := math.Sincos(-al.theta)
	return alignment{theta: -al.theta, t: [2]float64{-(c*al.t[0] - s*al.t[1]), -(s*al.t[0] + c*al.t[1])}}
}

// align finds the motion that explains the most pairings of b's
// landmarks with a's: every pairing of a triangle of a with a triangle of
// b of the same shape (sides within tol, same orientation) proposes one,
// the motion that explains the most landmarks wins (ties to the first
// proposed), and it is refitted to its pairings twice.
func align(a, b *mapIndex, tol float64) alignment {
	var best alignment
	bestCount := 0
	all := min(len(a.pts), len(b.pts)) // no motion can explain more
	for _, ta := range a.tris {
		if bestCount >= all {
			break
		}
		cands := b.sameShape(ta, tol)
		if len(cands) > maxShapeMatches {
			continue // a shape this common in b tells little
		}
		for _, ib := range cands {
			tb := b.tris[ib]
			var h alignment
			h.theta, h.t = fitRigid(a.pts, b.pts, [][2]int{{ta.v[0], tb.v[0]}, {ta.v[1], tb.v[1]}, {ta.v[2], tb.v[2]}})
			if n := countFits(a, b, &h, tol, bestCount); n > bestCount {
				best, bestCount = h, n
			}
		}
	}
	if bestCount < 3 {
		return alignment{}
	}
	refit(a, b, &best, tol)
	best.overlap = countFits(a, b, &best, max(tol, 2*a.spacing), 0)
	return best
}

// refit pairs b's landmarks with a's under al (pairUp) and refits al to
// those pairings twice, pairing again each time.
func refit(a, b *mapIndex, al *alignment, tol float64) {
	al.matches = pairUp(a, b, al, tol)
	for range 2 {
		al.theta, al.t = fitRigid(a.pts, b.pts, al.matches)
		al.matches = pairUp(a, b, al, tol)
	}
}

// maxShapeMatches is the most triangles of b a triangle of a may match
// and still propose motions: in a regular layout one shape recurs all
// over a map, and its many matches are mostly chance.
const maxShapeMatches = 8

// sameShape returns b's triangles whose sides are each within tol of t's,
// ascending (a mirror image proposes a motion that explains little).
func (b *mapIndex) sameShape(t triangle, tol float64) []int {
	k := t.key(tol)
	var out []int
	for d0 := -1; d0 <= 1; d0++ {
		for d1 := -1; d1 <= 1; d1++ {
			for d2 := -1; d2 <= 1; d2++ {
				for _, i := range b.shape[[3]int{k[0] + d0, k[1] + d1, k[2] + d2}] {
					u := b.tris[i]
					if math.Abs(u.s[0]-t.s[0]) <= tol && math.Abs(u.s[1]-t.s[1]) <= tol && math.Abs(u.s[2]-t.s[2]) <= tol {
						out = append(out, i)
					}
				}
			}
		}
	}
	sort.Ints(out)
	return out
}

// countFits counts b's landmarks that land within tol of one of a's under
// h, giving up (returning at most beat) once beat cannot be exceeded.
func countFits(a, b *mapIndex, h *alignment, tol float64, beat int) int {
	n := 0
	for j, p := range b.pts {
		if n+len(b.pts)-j <= beat {
			return n
		}
		if a.within(h.apply(p), b.z[j], tol) {
			n++
		}
	}
	return n
}

// within reports whether one of x's landmarks lies within tol of q (and
// of height z).
func (x *mapIndex) within(q geom.Point, z, tol float64) bool {
	hit := false
	x.grid.Near(q.X, q.Y, tol, func(k int32) {
		if !hit && math.Hypot(x.pts[k].X-q.X, x.pts[k].Y-q.Y) <= tol && math.Abs(x.z[k]-z) <= tol {
			hit = true
		}
	})
	return hit
}

// pairUp returns the pairings within tol under h, one-to-one, nearest
// first (ties to the lower indices), sorted by a's landmark.
func pairUp(a, b *mapIndex, h *alignment, tol float64) [][2]int {
	var cs []near
	for j, p := range b.pts {
		q := h.apply(p)
		a.grid.Near(q.X, q.Y, tol, func(k int32) {
			if d := math.Hypot(a.pts[k].X-q.X, a.pts[k].Y-q.Y); d <= tol && math.Abs(a.z[k]-b.z[j]) <= tol {
				cs = append(cs, near{int(k), j, d})
			}
		})
	}
	sortNear(cs)
	usedA, usedB := map[int]bool{}, map[int]bool{}
	var out [][2]int
	for _, c := range cs {
		if !usedA[c.a] && !usedB[c.b] {
			usedA[c.a], usedB[c.b] = true, true
			out = append(out, [2]int{c.a, c.b})
		}
	}
	sort.Slice(out, func(x, y int) bool { return out[x][0] < out[y][0] })
	return out
}

// fitRigid is the least-squares rigid motion taking b's points onto a's
// over the pairings (a's index, b's): the rotation angle and translation.
func fitRigid(a, b []geom.Point, pairs [][2]int) (float64, [2]float64) {
	var ca, cb geom.Point
	for _, p := range pairs {
		ca.X, ca.Y = ca.X+a[p[0]].X, ca.Y+a[p[0]].Y
		cb.X, cb.Y = cb.X+b[p[1]].X, cb.Y+b[p[1]].Y
	}
	n := float64(len(pairs))
	ca.X, ca.Y, cb.X, cb.Y = ca.X/n, ca.Y/n, cb.X/n, cb.Y/n
	var sxx, sxy float64
	for _, p := range pairs {
		ax, ay := a[p[0]].X-ca.X, a[p[0]].Y-ca.Y
		bx, by := b[p[1]].X-cb.X, b[p[1]].Y-cb.Y
		sxx += bx*ax + by*ay
		sxy += bx*ay - by*ax
	}
	theta := math.Atan2(sxy, sxx)
	s, c := math.Sincos(theta)
	return theta, [2]float64{ca.X - (c*cb.X - s*cb.Y), ca.Y - (s*cb.X + c*cb.Y)}
}
