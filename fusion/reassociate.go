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
// AlignRobots could not place together) apart. An observation farther
// than radius from its cluster's landmark leaves it (the optimized map disagrees with
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
	marks := opt.Graph.Landmarks
	component := frameKeys(opt, frames)
	obsMap := ObservationMaps(s)
	at := Positions(&localmap.Set{Maps: s.Maps, Poses: opt.Graph.Poses})
	cluster := append([]int(nil), r.Cluster...)
	for g, c := range cluster {
		if c >= 0 && math.Hypot(at[g][0]-marks[c][0], at[g][1]-marks[c][1]) > radius {
			cluster[g] = -1 // the optimized map disagrees with it
		}
	}
	keepMajorityFrame(cluster, obsMap, frames, r.Clusters)
	groups := newMapGroups(r.Clusters, component)
	for g, c := range cluster {
		if c >= 0 {
			groups.maps[c][obsMap[g]] = true
		}
	}
	pts := make([]geom.Point, len(marks))
	for c, m := range marks {
		pts[c] = geom.Point{X: m[0], Y: m[1]}
	}
	for _, n := range closePairs(pts, radius) {
		groups.join(n.a, n.b)
	}
	item := make([]int, len(cluster))
	for g, c := range cluster {
		item[g] = -1
		if c >= 0 {
			item[g] = groups.find(c)
		}
	}
	attachLone(item, at, obsMap, pts, radius, groups)
	clusterLone(item, at, obsMap, component, radius, r.Clusters)
	out := &Result{Method: r.Method, Seconds: r.Seconds}
	out.Cluster, out.Clusters = renumber(eval.MinTrack(item, minCluster))
	return out
}

// frameKeys is each map's component of opt and frame group (frames; nil:
// one group) as one key: maps of different keys share no frame.
func frameKeys(opt *Optimized, frames []int) []int {
	key := append([]int(nil), opt.Component...)
	for m, f := range frames {
		key[m] += f * len(key)
	}
	return key
}

// attachLone puts each observation in no cluster (item −1) into the
// nearest cluster (pts, its landmarks) within radius that may take its
// map, closest first.
func attachLone(item []int, at [][2]float64, obsMap []int, pts []geom.Point, radius float64, groups *mapGroups) {
	grid := geom.NewGrid(pts, max(radius, 1e-6))
	var lone []near
	for g, c := range item {
		if c >= 0 {
			continue
		}
		grid.Near(at[g][0], at[g][1], radius, func(k int32) {
			if d := math.Hypot(pts[k].X-at[g][0], pts[k].Y-at[g][1]); d <= radius {
				lone = append(lone, near{g, int(k), d})
			}
		})
	}
	sortNear(lone)
	for _, n := range lone {
		c := groups.find(n.b)
		if item[n.a] >= 0 || groups.apart(groups.maps[c], map[int]bool{obsMap[n.a]: true}) {
			continue
		}
		item[n.a] = c
		groups.maps[c][obsMap[n.a]] = true
	}
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
	groups := newMapGroups(len(pts), component)
	for a := range pts {
		groups.maps[a][obsMap[idx[a]]] = true
	}
	for _, n := range closePairs(pts, radius) {
		groups.join(n.a, n.b)
	}
	for a := range pts {
		item[idx[a]] = next + groups.find(a)
	}
}

// mapGroups are groups of observations joined closest first (union–find),
// each with the maps it holds: two join only when no map would appear
// twice in one and all their maps share a component (component: each
// map's key), and never with an empty group, whose frame is unknown.
type mapGroups struct {
	root      []int
	maps      []map[int]bool
	component []int
}

func newMapGroups(n int, component []int) *mapGroups {
	g := &mapGroups{root: make([]int, n), maps: make([]map[int]bool, n), component: component}
	for a := range g.root {
		g.root[a], g.maps[a] = a, map[int]bool{}
	}
	return g
}

func (g *mapGroups) find(a int) int {
	for g.root[a] != a {
		a = g.root[a]
	}
	return a
}

// apart reports two sets of maps that may not be one group's.
func (g *mapGroups) apart(a, b map[int]bool) bool {
	for m := range a {
		for n := range b {
			return g.component[m] != g.component[n] || shareMap(a, b)
		}
	}
	return true
}

// join joins a's and b's groups (into the lower root) unless apart.
func (g *mapGroups) join(a, b int) {
	a, b = g.find(a), g.find(b)
	if a == b || g.apart(g.maps[a], g.maps[b]) {
		return
	}
	a, b = min(a, b), max(a, b)
	g.root[b] = a
	for m := range g.maps[b] {
		g.maps[a][m] = true
	}
}

// near is two indices (two points, or an observation and a point) and
// their distance.
type near struct {
	a, b int
	d    float64
}

// closePairs are the pairs of pts within radius of each other, closest
// first.
func closePairs(pts []geom.Point, radius float64) []near {
	grid := geom.NewGrid(pts, max(radius, 1e-6))
	var out []near
	for a, p := range pts {
		grid.Near(p.X, p.Y, radius, func(k int32) {
			if b := int(k); b > a {
				if d := math.Hypot(pts[b].X-p.X, pts[b].Y-p.Y); d <= radius {
					out = append(out, near{a, b, d})
				}
			}
		})
	}
	sortNear(out)
	return out
}

// sortNear orders v closest first, ties by the lower a, then b.
func sortNear(v []near) {
	sort.Slice(v, func(x, y int) bool {
		if v[x].d != v[y].d {
			return v[x].d < v[y].d
		}
		if v[x].a != v[y].a {
			return v[x].a < v[y].a
		}
		return v[x].b < v[y].b
	})
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

// Constraining is r with every cluster of at least two observations its
// method gave (Result.Item), before the post-processing that drops the
// small ones: the association to optimize. A cluster of two observations
// constrains the poses as one of forty does; on sparse maps the small
// clusters are most of what ties the trajectory together, and a map
// optimized without them is left at the odometry's error. A result
// without Item (Reassociate's) is r.
func Constraining(r *Result) *Result {
	if r.Item == nil {
		return r
	}
	out := &Result{Method: r.Method, Seconds: r.Seconds, Skipped: r.Skipped}
	out.Cluster, out.Clusters = renumber(eval.MinTrack(r.Item, 2))
	return out
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
	keepMajorityFrame(cluster, ObservationMaps(s), frames, r.Clusters)
	out := &Result{Method: r.Method, Seconds: r.Seconds}
	out.Cluster, out.Clusters = renumber(cluster)
	return out
}

// observationStarts is each of s's maps' first observation number (as
// ObservationMaps numbers them), and after the last map their count: map
// k's observations are first[k] to first[k+1]−1.
func observationStarts(s *localmap.Set) []int {
	first := make([]int, len(s.Maps)+1)
	for k, m := range s.Maps {
		first[k+1] = first[k] + len(m.Landmarks)
	}
	return first
}

// ObservationMaps is each of s's observations' map, in order (maps, then
// each map's landmarks: the observations' numbers in a Result).
func ObservationMaps(s *localmap.Set) []int {
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
