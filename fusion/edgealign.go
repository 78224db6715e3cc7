package fusion

import (
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
)

// joinNeighbours is how many nearest landmarks each landmark forms an
// edge with, for alignByEdges.
const joinNeighbours = 6

// alignByEdges is align with two landmarks a proposal, not three: each
// edge of a (a landmark and one of its joinNeighbours nearest) and each
// edge of b as long within tol, both ways round, propose the motion that
// lays one on the other. A triangle needs unlike sides to order its
// corners, and a landmark moved by centimetres can make or break that,
// so two maps nearly alike can propose different motions; an edge has no
// order to lose. Every proposal is counted, so the result also holds
// the proposals and runnerUp, the most pairings of a motion that moves
// one of b's landmarks over two tolerances from where the best puts it,
// both refitted to their pairings: two edges of one alignment, each
// fitting it on two landmarks a few tenths of a metre off, can turn it
// enough to lay a far landmark that far apart, and are one motion.
func alignByEdges(a, b *mapIndex, tol float64) alignment {
	ea, eb := edges(a.pts, joinNeighbours), edges(b.pts, joinNeighbours)
	sort.SliceStable(eb, func(x, y int) bool { return eb[x].d < eb[y].d })
	// A proposal is an edge of a, one of b (k) and its way round, and
	// its pairings.
	type proposal struct{ a, b, way, n int }
	motion := func(p proposal) alignment {
		var h alignment
		o := [2]int{eb[p.b].i, eb[p.b].j}
		if p.way == 1 {
			o = [2]int{eb[p.b].j, eb[p.b].i}
		}
		h.theta, h.t = fitRigid(a.pts, b.pts, [][2]int{{ea[p.a].i, o[0]}, {ea[p.a].j, o[1]}})
		return h
	}
	var tried []proposal // those of three pairings or more
	best, proposals := proposal{n: -1}, 0
	for x, e := range ea {
		from := sort.Search(len(eb), func(k int) bool { return eb[k].d >= e.d-tol })
		for k := from; k < len(eb) && eb[k].d <= e.d+tol; k++ {
			for way := range 2 {
				proposals++
				p := proposal{a: x, b: k, way: way}
				h := motion(p)
				if p.n = countFits(a, b, &h, tol, 0); p.n >= 3 {
					tried = append(tried, p)
				}
				if p.n > best.n {
					best = p
				}
			}
		}
	}
	if best.n < 3 {
		return alignment{proposals: proposals}
	}
	al := motion(best)
	al.proposals = proposals
	refit(a, b, &al, tol)
	sort.SliceStable(tried, func(x, y int) bool { return tried[x].n > tried[y].n })
	for _, p := range tried {
		h := motion(p)
		refit(a, b, &h, tol)
		if movesApart(b.pts, &al, &h, 2*tol) {
			al.runnerUp = len(h.matches)
			break
		}
	}
	return al
}

// movesApart reports whether g and h lay one of pts over d apart.
func movesApart(pts []geom.Point, g, h *alignment, d float64) bool {
	for _, p := range pts {
		x, y := g.apply(p), h.apply(p)
		if math.Hypot(x.X-y.X, x.Y-y.Y) > d {
			return true
		}
	}
	return false
}

// edge is two landmarks (i < j) and their distance.
type edge struct {
	i, j int
	d    float64
}

// edges are each point's edges to its k nearest, each once, in order.
func edges(pts []geom.Point, k int) []edge {
	seen := map[[2]int]bool{}
	var out []edge
	for i := range pts {
		for _, j := range nearest(pts, i, k) {
			a, b := min(i, j), max(i, j)
			if !seen[[2]int{a, b}] {
				seen[[2]int{a, b}] = true
				out = append(out, edge{a, b, math.Hypot(pts[a].X-pts[b].X, pts[a].Y-pts[b].Y)})
			}
		}
	}
	return out
}

// chanceAlignments is the log of how many alignments as good as al (its
// pairings of b's nb landmarks with a's) chance would give among al's
// proposals: each of b's landmarks beyond the two that proposed the
// motion lands within tol of one of a's with the probability that a's
// landmarks cover of their bounding box, so those pairings are Poisson
// (logPoissonTail), as in Moisan and Stival's a-contrario RANSAC. +Inf
// when chance expects that many.
func chanceAlignments(al alignment, a []geom.Point, nb int, tol float64) float64 {
	k := len(al.matches) - 2
	if k <= 0 || len(a) == 0 {
		return math.Inf(1)
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range a {
		x0, y0, x1, y1 = min(x0, p.X), min(y0, p.Y), max(x1, p.X), max(y1, p.Y)
	}
	area := (x1 - x0 + 2*tol) * (y1 - y0 + 2*tol)
	hit := min(1, float64(len(a))*math.Pi*tol*tol/area)
	lambda := float64(nb-2) * hit
	if lambda >= float64(k) {
		return math.Inf(1)
	}
	return math.Log(float64(max(al.proposals, 1))) + logPoissonTail(k, lambda)
}
