package eval

import (
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
)

// Mapper maps a point of image i to image j; ok is false when it has no
// image there.
type Mapper func(i, j int, x, y float64) (float64, float64, bool)

// HomographyTruth is the ground truth of a planar scene (the Graffiti
// protocol of the paper): which detected features are kept, and the item of
// every kept feature.
type HomographyTruth struct {
	// Keep[i] lists the kept features of image i, increasing.
	Keep [][]int
	// Truth[k] is the item of kept observation k; observations are the kept
	// features numbered image by image.
	Truth []int
	// Items is the number of ground-truth items.
	Items int
}

// HomographyGroundTruth builds the ground truth from the features of every
// image and the homographies between them:
//
//  1. for each pair of images i < j, the features of i are mapped into j,
//     and matched one to one greedily by the smallest reprojection distance
//     (ties go to the lower index of i, then of j), keeping distances of at
//     most tol pixels;
//  2. the connected components of the graph of all those matches are the
//     candidate items;
//  3. a component is kept only when it is a clique, has at least two
//     members and at most one feature per image, so the truth is cycle
//     consistent; all other features are dropped (the paper keeps only
//     features whose association is cycle consistent across all images).
func HomographyGroundTruth(pts [][]geom.Point, h Mapper, tol float64) HomographyTruth {
	n := len(pts)
	off := make([]int, n+1)
	for i, p := range pts {
		off[i+1] = off[i] + len(p)
	}
	l := off[n]
	parent := make([]int, l)
	for i := range parent {
		parent[i] = i
	}
	find := func(x int) int {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	type edge struct{ a, b int }
	var edges []edge
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			// Cells of at least a pixel: any side finds the same points.
			grid := geom.NewGrid(pts[j], max(tol, 1))
			type cand struct {
				d    float64
				a, b int
			}
			var cands []cand
			for a, p := range pts[i] {
				x, y, ok := h(i, j, p.X, p.Y)
				if !ok {
					continue
				}
				grid.Near(x, y, tol, func(k int32) {
					b := int(k)
					q := pts[j][b]
					if d := math.Hypot(q.X-x, q.Y-y); d <= tol {
						cands = append(cands, cand{d, a, b})
					}
				})
			}
			sort.Slice(cands, func(x, y int) bool {
				cx, cy := cands[x], cands[y]
				if cx.d != cy.d {
					return cx.d < cy.d
				}
				if cx.a != cy.a {
					return cx.a < cy.a
				}
				return cx.b < cy.b
			})
			usedA := map[int]bool{}
			usedB := map[int]bool{}
			for _, c := range cands {
				if usedA[c.a] || usedB[c.b] {
					continue
				}
				usedA[c.a], usedB[c.b] = true, true
				ga, gb := off[i]+c.a, off[j]+c.b
				edges = append(edges, edge{ga, gb})
				ra, rb := find(ga), find(gb)
				if ra != rb {
					parent[max(ra, rb)] = min(ra, rb)
				}
			}
		}
	}
	size := map[int]int{}
	edgeCount := map[int]int{}
	label := make([]int, l)
	view := make([]int, l)
	for i := 0; i < n; i++ {
		for v := off[i]; v < off[i+1]; v++ {
			label[v], view[v] = find(v), i
			size[label[v]]++
		}
	}
	for _, e := range edges {
		edgeCount[find(e.a)]++
	}
	twoInOneImage := conflicts(view, label)
	valid := func(r int) bool {
		s := size[r]
		return s >= 2 && !twoInOneImage[r] && edgeCount[r] == s*(s-1)/2
	}
	t := HomographyTruth{Keep: make([][]int, n)}
	item := map[int]int{}
	for i := 0; i < n; i++ {
		for a := range pts[i] {
			r := find(off[i] + a)
			if !valid(r) {
				continue
			}
			id, ok := item[r]
			if !ok {
				id = len(item)
				item[r] = id
			}
			t.Keep[i] = append(t.Keep[i], a)
			t.Truth = append(t.Truth, id)
		}
	}
	t.Items = len(item)
	return t
}
