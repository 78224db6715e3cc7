package fusion

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// Joining frames by their optimized maps. Robots the association could
// not place together (AlignRobots judges map pairs of a few landmarks
// each) are optimized apart, and each comes out with a map of its own:
// every landmark it saw, where its loops put it. Robots that shared a
// space saw one layout from different frames, and two such maps align
// as local maps do, with far more landmarks to agree on.

// Joined is JoinFrames' result: s's poses and opt's graph moved into the
// joined frames, and each map's frame group (numbered by first map) and
// their count.
type Joined struct {
	Poses     []localmap.Pose
	Optimized *Optimized
	Frames    []int
	Groups    int
	// Pieces counts the maps optimized apart before the join.
	Pieces int
}

// joinLandmarks bounds the landmarks of a map to join, the most seen
// kept: an alignment's proposals grow with their square.
const joinLandmarks = 200

// JoinFrames places the maps optimized apart in opt (r's clusters on s;
// frames each map's frame group, as AlignRobots gives) in one frame
// where their landmarks align beyond chance (joinMaps). A piece, one map
// optimized apart, is a frame group's connected component in opt; its
// landmarks are r's clusters seen from two maps or more. It returns nil
// when it joins none, and ctx's error when cancelled.
func JoinFrames(ctx context.Context, s *localmap.Set, r *Result, opt *Optimized, frames []int, tol float64) (*Joined, error) {
	piece, pieces := mapPieces(frames, opt.Component)
	if pieces < 2 {
		return nil, nil
	}
	clusterPiece, maps := pieceLandmarks(s, r, opt, piece, pieces, 2*tol)
	frame, group, groups, err := joinMaps(ctx, maps, tol)
	if err != nil || groups == pieces {
		return nil, err
	}
	j := &Joined{Poses: make([]localmap.Pose, len(s.Poses)), Frames: make([]int, len(s.Poses)), Groups: groups, Pieces: pieces}
	g := *opt.Graph
	g.Poses = make([]localmap.Pose, len(opt.Graph.Poses))
	g.Landmarks = slices.Clone(opt.Graph.Landmarks)
	moved := *opt
	moved.Graph, moved.Component, moved.Components = &g, make([]int, len(s.Poses)), groups
	for m := range s.Poses {
		t := frame[piece[m]]
		j.Poses[m], g.Poses[m] = compose(t, s.Poses[m]), compose(t, opt.Graph.Poses[m])
		j.Frames[m], moved.Component[m] = group[piece[m]], group[piece[m]]
	}
	for c, p := range clusterPiece {
		if p >= 0 {
			g.Landmarks[c][0], g.Landmarks[c][1] = frame[p].Apply(g.Landmarks[c][0], g.Landmarks[c][1])
		}
	}
	j.Optimized = &moved
	return j, nil
}

// mapPieces numbers each map's piece, its (frame group, component), in
// map order.
func mapPieces(frames, component []int) (piece []int, pieces int) {
	id := map[[2]int]int{}
	piece = make([]int, len(frames))
	for m := range frames {
		k := [2]int{frames[m], component[m]}
		if _, ok := id[k]; !ok {
			id[k] = len(id)
		}
		piece[m] = id[k]
	}
	return piece, len(id)
}

// pieceMap is a map to join: its landmarks, how many maps saw each, and
// the pieces it holds.
type pieceMap struct {
	pts    []geom.Point
	seen   []int
	pieces []int
}

// pieceLandmarks is each cluster's piece (−1 for none) and each piece's
// map: its clusters seen from two maps or more, at their optimized
// positions, the most seen first (at most joinLandmarks), each kept only
// when no kept one lies within apart: a landmark split into clusters
// would otherwise pair with itself.
func pieceLandmarks(s *localmap.Set, r *Result, opt *Optimized, piece []int, pieces int, apart float64) (clusterPiece []int, out []pieceMap) {
	clusterPiece = make([]int, r.Clusters)
	maps := make([]map[int]bool, r.Clusters)
	for g, m := range ObservationMaps(s) {
		if c := r.Cluster[g]; c >= 0 {
			if maps[c] == nil {
				maps[c] = map[int]bool{}
			}
			maps[c][m] = true
			clusterPiece[c] = piece[m] // the optimizer holds a cluster within one
		}
	}
	var seen []int // clusters of two maps or more, the most seen first
	for c := range clusterPiece {
		if maps[c] == nil {
			clusterPiece[c] = -1
		} else if len(maps[c]) >= 2 {
			seen = append(seen, c)
		}
	}
	sort.SliceStable(seen, func(x, y int) bool { return len(maps[seen[x]]) > len(maps[seen[y]]) })
	out = make([]pieceMap, pieces)
	kept := make([]spatialHash, pieces)
	for p := range out {
		out[p].pieces, kept[p] = []int{p}, spatialHash{}
	}
	for _, c := range seen {
		p, l := clusterPiece[c], opt.Graph.Landmarks[c]
		q := geom.Point{X: l[0], Y: l[1]}
		if len(out[p].pts) == joinLandmarks || kept[p].near(q, apart) >= 0 {
			continue
		}
		kept[p].add(q, len(out[p].pts), apart)
		out[p].pts, out[p].seen = append(out[p].pts, q), append(out[p].seen, len(maps[c]))
	}
	return clusterPiece, out
}

// joinMaps joins maps agglomeratively: of every two maps, the alignment
// (alignByEdges) that chance explains least (chanceAlignments) joins them
// first, when chance would explain it fewer than joinFalseAlarms times
// and no other motion comes within joinUnique of it; the two become one
// map (merge), so that a map another overlaps only in part can match
// their union. frame is each piece's frame in its group's first
// piece's, group its group (numbered by first piece), groups their
// count.
func joinMaps(ctx context.Context, maps []pieceMap, tol float64) (frame []localmap.Pose, group []int, groups int, err error) {
	n := len(maps)
	frame = make([]localmap.Pose, n)
	idx := make([]*mapIndex, n)
	for g := range maps {
		idx[g] = newPointIndex(maps[g].pts, make([]float64, len(maps[g].pts)), tol, 0)
	}
	type candidate struct {
		al  alignment
		nfa float64 // log
	}
	judged := map[[2]int]candidate{}
	live := slices.Repeat([]bool{true}, n)
	for {
		best, pair := candidate{nfa: math.Log(joinFalseAlarms)}, [2]int{-1, -1}
		for g := range n {
			for h := g + 1; h < n && live[g]; h++ {
				if !live[h] {
					continue
				}
				if err := ctx.Err(); err != nil {
					return nil, nil, 0, err
				}
				c, ok := judged[[2]int{g, h}]
				if !ok {
					c.al = alignByEdges(idx[g], idx[h], tol)
					c.nfa = chanceAlignments(c.al, maps[g].pts, len(maps[h].pts), tol)
					if float64(len(c.al.matches)) < joinUnique*float64(c.al.runnerUp) {
						c.nfa = math.Inf(1)
					}
					judged[[2]int{g, h}] = c
				}
				if c.nfa < best.nfa {
					best, pair = c, [2]int{g, h}
				}
			}
		}
		g, h := pair[0], pair[1]
		if g < 0 {
			break
		}
		t := localmap.Pose{X: best.al.t[0], Y: best.al.t[1], Theta: best.al.theta}
		for _, p := range maps[h].pieces {
			frame[p] = compose(t, frame[p])
		}
		maps[g], live[h] = maps[g].merge(maps[h], t, 2*tol), false
		idx[g] = newPointIndex(maps[g].pts, make([]float64, len(maps[g].pts)), tol, 0)
		for k := range judged {
			if k[0] == g || k[1] == g {
				delete(judged, k)
			}
		}
	}
	group = make([]int, n)
	for g := range n {
		if live[g] {
			for _, p := range maps[g].pieces {
				group[p] = groups
			}
			groups++
		}
	}
	return frame, group, groups, nil
}

// joinFalseAlarms is how many alignments as good as a join's chance may
// give among its proposals (the a-contrario threshold). joinUnique is how
// many times the pairings of any other motion (one that moves a landmark
// over two tolerances more) a join's pairings must be: landmarks laid
// out more evenly than at random (a grid, a lab's spacing) give chance
// more alignments than chanceAlignments counts, all nearly as good.
const (
	joinFalseAlarms = 1
	joinUnique      = 1.25
)

// merge is m with o's landmarks moved by t into m's frame: each within
// apart of one of m's averaged with it (weighted by the maps that saw
// them), the others added, the most seen kept (at most joinLandmarks).
func (m pieceMap) merge(o pieceMap, t localmap.Pose, apart float64) pieceMap {
	out := pieceMap{pts: slices.Clone(m.pts), seen: slices.Clone(m.seen), pieces: append(slices.Clone(m.pieces), o.pieces...)}
	near := spatialHash{}
	for i, p := range out.pts {
		near.add(p, i, apart)
	}
	for k, p := range o.pts {
		x, y := t.Apply(p.X, p.Y)
		i := near.near(geom.Point{X: x, Y: y}, apart)
		if i < 0 {
			near.add(geom.Point{X: x, Y: y}, len(out.pts), apart)
			out.pts, out.seen = append(out.pts, geom.Point{X: x, Y: y}), append(out.seen, o.seen[k])
			continue
		}
		a, b, q := float64(out.seen[i]), float64(o.seen[k]), out.pts[i]
		out.pts[i] = geom.Point{X: (a*q.X + b*x) / (a + b), Y: (a*q.Y + b*y) / (a + b)}
		out.seen[i] += o.seen[k]
	}
	if len(out.pts) > joinLandmarks {
		order := make([]int, len(out.pts))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(x, y int) bool { return out.seen[order[x]] > out.seen[order[y]] })
		pts, seen := make([]geom.Point, joinLandmarks), make([]int, joinLandmarks)
		for k, i := range order[:joinLandmarks] {
			pts[k], seen[k] = out.pts[i], out.seen[i]
		}
		out.pts, out.seen = pts, seen
	}
	return out
}

// spatialHash holds numbered points in square cells of a side r, to find
// one within r of a point.
type spatialHash map[[2]int][]hashed

type hashed struct {
	p geom.Point
	i int
}

func cellOf(p geom.Point, r float64) [2]int {
	return [2]int{int(math.Floor(p.X / r)), int(math.Floor(p.Y / r))}
}

func (h spatialHash) add(p geom.Point, i int, r float64) {
	k := cellOf(p, r)
	h[k] = append(h[k], hashed{p, i})
}

// near is the number of the nearest point within r of p (the lower on a
// tie), −1 for none.
func (h spatialHash) near(p geom.Point, r float64) int {
	c, best, bestD := cellOf(p, r), -1, r
	for dx := -1; dx <= 1; dx++ {
		for dy := -1; dy <= 1; dy++ {
			for _, q := range h[[2]int{c[0] + dx, c[1] + dy}] {
				if d := math.Hypot(p.X-q.p.X, p.Y-q.p.Y); d < bestD || d == bestD && (best < 0 || q.i < best) {
					best, bestD = q.i, d
				}
			}
		}
	}
	return best
}
