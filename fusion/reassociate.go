package fusion

import (
	"math"
	"sort"

	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// ReassociatedSuffix after a method's name labels its map associated
// again in the optimized frame (Reassociate).
const ReassociatedSuffix = "+reassociated"

// Reassociate associates again in the frame opt optimized r's map into
// (its poses and each of r's clusters' landmark), each component of opt
// apart, and each group of frames (each map's, nil: one group; robots
// AlignRobots could not place together) apart. An observation farther than radius from
// its cluster's landmark leaves it (the optimized map disagrees with
// it), and so does one of a frame group other than its cluster's most
// frequent; two clusters whose landmarks lie within radius become one; an
// observation in no cluster joins the nearest cluster within radius; the
// observations still in none group by proximity within radius (single
// linkage); each step closest first, and never so that a map holds two
// observations of one cluster. Clusters smaller than minCluster are
// dropped. The pairwise association judges each map pair alone and CLEAR
// splits a landmark it sees through too few pairs; once the map is
// optimized, its landmarks are where they are. The result is r's method,
// its clusters renumbered.
func Reassociate(s *localmap.Set, r *Result, opt *Optimized, frames []int, radius float64, minCluster int) *Result {
	poses, marks := opt.Graph.Poses, opt.Graph.Landmarks
	component := append([]int(nil), opt.Component...)
	for m, f := range frames { // a frame group and a component: one key
		component[m] += f * len(component)
	}
	obsMap := observationMaps(s)
	// apart: two clusters' maps that may not join (one map twice, two
	// components, or an emptied cluster, whose frame is unknown).
	apart := func(a, b map[int]bool) bool {
		for m := range a {
			for n := range b {
				return component[m] != component[n] || shareMap(a, b)
			}
		}
		return true
	}
	at := Positions(&localmap.Set{Maps: s.Maps, Poses: poses})
	cluster := append([]int(nil), r.Cluster...)
	for g, c := range cluster {
		if c >= 0 && math.Hypot(at[g][0]-marks[c][0], at[g][1]-marks[c][1]) > radius {
			cluster[g] = -1 // the optimized map disagrees with it
		}
	}
	keepMajorityFrame(cluster, obsMap, frames, r.Clusters)
	root := make([]int, r.Clusters)
	maps := make([]map[int]bool, r.Clusters)
	for c := range root {
		root[c], maps[c] = c, map[int]bool{}
	}
	for g, c := range cluster {
		if c >= 0 {
			maps[c][obsMap[g]] = true
		}
	}
	find := func(c int) int {
		for root[c] != c {
			c = root[c]
		}
		return c
	}
	// Clusters near each other, closest first.
	pts := make([]geom.Point, len(marks))
	for c, m := range marks {
		pts[c] = geom.Point{X: m[0], Y: m[1]}
	}
	grid := geom.NewGrid(pts, max(radius, 1e-6))
	type near struct {
		a, b int
		d    float64
	}
	var cand []near
	for a, p := range pts {
		grid.Near(p.X, p.Y, radius, func(k int32) {
			if b := int(k); b > a {
				if d := math.Hypot(pts[b].X-p.X, pts[b].Y-p.Y); d <= radius {
					cand = append(cand, near{a, b, d})
				}
			}
		})
	}
	sort.Slice(cand, func(x, y int) bool {
		if cand[x].d != cand[y].d {
			return cand[x].d < cand[y].d
		}
		if cand[x].a != cand[y].a {
			return cand[x].a < cand[y].a
		}
		return cand[x].b < cand[y].b
	})
	for _, n := range cand {
		a, b := find(n.a), find(n.b)
		if a == b || apart(maps[a], maps[b]) {
			continue
		}
		a, b = min(a, b), max(a, b)
		root[b] = a
		for m := range maps[b] {
			maps[a][m] = true
		}
	}
	item := make([]int, len(cluster))
	for g, c := range cluster {
		item[g] = -1
		if c >= 0 {
			item[g] = find(c)
		}
	}
	// Observations in no cluster, each to the nearest cluster within
	// radius that its map is not in yet.
	var lone []near
	for g, c := range cluster {
		if c >= 0 {
			continue
		}
		grid.Near(at[g][0], at[g][1], radius, func(k int32) {
			if d := math.Hypot(pts[k].X-at[g][0], pts[k].Y-at[g][1]); d <= radius {
				lone = append(lone, near{g, int(k), d})
			}
		})
	}
	sort.Slice(lone, func(x, y int) bool {
		if lone[x].d != lone[y].d {
			return lone[x].d < lone[y].d
		}
		if lone[x].a != lone[y].a {
			return lone[x].a < lone[y].a
		}
		return lone[x].b < lone[y].b
	})
	for _, n := range lone {
		c := find(n.b)
		if item[n.a] >= 0 || apart(maps[c], map[int]bool{obsMap[n.a]: true}) {
			continue
		}
		item[n.a] = c
		maps[c][obsMap[n.a]] = true
	}
	clusterLone(item, at, obsMap, component, radius, r.Clusters)
	out := &Result{Method: r.Method, Seconds: r.Seconds}
	out.Cluster, out.Clusters = renumber(eval.MinTrack(item, minCluster))
	return out
}

// clusterLone groups the observations still in no cluster (item −1) by
// proximity at their positions at: the closest two first, single linkage,
// never two observations of one map in a group, never maps of two
// components (their frames are unrelated). New groups are numbered from
// next up.
func clusterLone(item []int, at [][2]float64, obsMap, component []int, radius float64, next int) {
	var idx []int
	var pts []geom.Point
	for g, c := range item {
		if c < 0 {
			idx, pts = append(idx, g), append(pts, geom.Point{X: at[g][0], Y: at[g][1]})
		}
	}
	grid := geom.NewGrid(pts, max(radius, 1e-6))
	type near struct {
		a, b int
		d    float64
	}
	var cand []near
	for a, p := range pts {
		grid.Near(p.X, p.Y, radius, func(k int32) {
			if b := int(k); b > a && obsMap[idx[a]] != obsMap[idx[b]] && component[obsMap[idx[a]]] == component[obsMap[idx[b]]] {
				if d := math.Hypot(pts[b].X-p.X, pts[b].Y-p.Y); d <= radius {
					cand = append(cand, near{a, b, d})
				}
			}
		})
	}
	sort.Slice(cand, func(x, y int) bool {
		if cand[x].d != cand[y].d {
			return cand[x].d < cand[y].d
		}
		if cand[x].a != cand[y].a {
			return cand[x].a < cand[y].a
		}
		return cand[x].b < cand[y].b
	})
	root := make([]int, len(pts))
	maps := make([]map[int]bool, len(pts))
	for a := range root {
		root[a], maps[a] = a, map[int]bool{obsMap[idx[a]]: true}
	}
	find := func(a int) int {
		for root[a] != a {
			a = root[a]
		}
		return a
	}
	for _, n := range cand {
		a, b := find(n.a), find(n.b)
		if a == b || shareMap(maps[a], maps[b]) {
			continue
		}
		a, b = min(a, b), max(a, b)
		root[b] = a
		for m := range maps[b] {
			maps[a][m] = true
		}
	}
	for a := range pts {
		item[idx[a]] = next + find(a)
	}
}

// keepMajorityFrame takes out of each cluster the observations of frame
// groups other than its most frequent one (the lowest at a tie): two
// groups' frames are unrelated, so a cluster across them was not
// confirmed by any placement.
func keepMajorityFrame(cluster, obsMap, frames []int, clusters int) {
	if frames == nil {
		return
	}
	count := make([]map[int]int, clusters)
	for g, c := range cluster {
		if c >= 0 {
			if count[c] == nil {
				count[c] = map[int]int{}
			}
			count[c][frames[obsMap[g]]]++
		}
	}
	major := make([]int, clusters)
	for c, n := range count {
		best := -1
		for f, k := range n {
			if best < 0 || k > n[best] || k == n[best] && f < best {
				best = f
			}
		}
		major[c] = best
	}
	for g, c := range cluster {
		if c >= 0 && frames[obsMap[g]] != major[c] {
			cluster[g] = -1
		}
	}
}

// WithinFrames is r with each cluster's observations of frame groups
// other than its most frequent one taken out (frames: each map's group,
// as AlignRobots gives; nil: r itself), renumbered: a map to optimize in
// which no unconfirmed placement ties two robots together.
func WithinFrames(s *localmap.Set, r *Result, frames []int) *Result {
	if frames == nil {
		return r
	}
	cluster := append([]int(nil), r.Cluster...)
	keepMajorityFrame(cluster, observationMaps(s), frames, r.Clusters)
	out := &Result{Method: r.Method, Seconds: r.Seconds}
	out.Cluster, out.Clusters = renumber(cluster)
	return out
}

// observationMaps is each observation's map (global indices).
func observationMaps(s *localmap.Set) []int {
	var out []int
	for k, m := range s.Maps {
		for range m.Landmarks {
			out = append(out, k)
		}
	}
	return out
}

func shareMap(a, b map[int]bool) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	for m := range a {
		if b[m] {
			return true
		}
	}
	return false
}
