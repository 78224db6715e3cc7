package fusion

import (
	"math"
	"math/bits"
	"sort"

	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/localmap"
)

// Pairwise consistency of the associated map pairs (PCM: Mangelson,
// Dominic, Eustice and Vasudevan, "Pairwise Consistent Measurement Set
// Maximization for Robust Multi-robot Map Merging", ICRA 2018): two map
// pairs (i, j) and (k, l), i and k of one robot, j and l of one robot,
// agree when the loop they close with the odometry, j's frame into i's
// through j's pair and through k's, l's and the odometry from l to j and
// from k to i, lays map l's landmarks where the other route does, within
// the odometry's error over the paths i–k and j–l. The pairs a shape
// search finds by chance on sparse maps turn and shift maps at random and
// agree with few others; the pairs of one robot that are kept are the
// largest set that agree pairwise. The test needs only the
// odometry between maps close in time, so it holds where the odometry
// drifts far over a whole run.

// consistentPairs keeps, among the map pairs of one robot found
// associates (found[k] for pairs[k]; an empty alignment is none), the
// largest set that agree pairwise; it empties the others' alignments. A
// robot with a single map pair keeps it. noise is the odometry's error
// per metre of path (3 σ bound the agreement). Pairs across robots are
// left to AlignRobots, which places robots only on agreeing pairs with
// most of their pairings behind them: on five robots in a sparse arena
// (seed 1) their largest agreeing sets were chance, and placing the
// robots by them cost the map's precision (1.000 → 0.692).
func consistentPairs(s *localmap.Set, path []float64, idx []*mapIndex, pairs [][2]int, found []alignment, noise Noise, tol float64) {
	groups := map[string][]int{}
	var keys []string
	for k, f := range found {
		if len(f.matches) == 0 {
			continue
		}
		key := s.Robot(pairs[k][0])
		if key != s.Robot(pairs[k][1]) {
			continue // across robots: AlignRobots' own test (robots.go)
		}
		if groups[key] == nil {
			keys = append(keys, key)
		}
		groups[key] = append(groups[key], k)
	}
	for _, key := range keys {
		g := groups[key]
		if len(g) < 2 {
			continue
		}
		adj := make([][]uint64, len(g))
		for x := range g {
			adj[x] = make([]uint64, (len(g)+63)/64)
		}
		for x := range g {
			for y := x + 1; y < len(g); y++ {
				if agree(s, path, idx, pairs[g[x]], pairs[g[y]], &found[g[x]], &found[g[y]], noise, tol) {
					adj[x][y/64] |= 1 << (y % 64)
					adj[y][x/64] |= 1 << (x % 64)
				}
			}
		}
		keep := maximumClique(adj)
		for x, k := range g {
			if !keep[x] {
				found[k] = alignment{}
			}
		}
	}
}

// agree reports whether map pairs e and f (with motions fe and ff, the
// second map's frame into the first's) close a loop with the odometry, in
// the orientation whose odometry paths are shortest.
func agree(s *localmap.Set, path []float64, idx []*mapIndex, e, f [2]int, fe, ff *alignment, noise Noise, tol float64) bool {
	best, ok := math.Inf(1), false
	for _, flip := range []bool{false, true} {
		k, l, m := f[0], f[1], *ff
		if flip {
			k, l, m = f[1], f[0], ff.inverse()
		}
		i, j := e[0], e[1]
		if !s.SameRobot(i, k) || !s.SameRobot(j, l) {
			continue
		}
		d := math.Abs(path[i]-path[k]) + math.Abs(path[j]-path[l])
		if d >= best {
			continue
		}
		best = d
		viaJ := fe.then(predict(s.Poses[j], s.Poses[l])) // l → j → i
		viaK := predict(s.Poses[i], s.Poses[k]).then(m)  // l → k → i
		ok = closes(idx[l].pts, viaJ, viaK, d, noise, tol)
	}
	return ok
}

// closes reports whether the two routes lay every point within the
// alignments' tolerance (twice: two pairs) and three σ of the odometry's
// error over a path d: drift·d, and the heading error turnDrift·d at the
// point's distance from the second route's origin.
func closes(pts []geom.Point, a, b alignment, d float64, noise Noise, tol float64) bool {
	for _, p := range pts {
		q, r := a.apply(p), b.apply(p)
		reach := math.Hypot(r.X-b.t[0], r.Y-b.t[1])
		if math.Hypot(q.X-r.X, q.Y-r.Y) > 2*tol+3*d*(noise.Drift+noise.TurnDrift*reach) {
			return false
		}
	}
	return true
}

// maximumCliqueBudget bounds the branches maximumClique explores; past it the
// largest clique found so far stands.
const maximumCliqueBudget = 1 << 20

// maximumClique is a largest clique of the graph adj (bit sets of
// neighbours), by branch and bound over the vertices in order of
// decreasing degree (ties to the lower index); within maximumCliqueBudget
// branches it is exact.
func maximumClique(adj [][]uint64) []bool {
	n := len(adj)
	words := (n + 63) / 64
	order := make([]int, n)
	deg := make([]int, n)
	for v := range adj {
		order[v] = v
		for _, w := range adj[v] {
			deg[v] += bits.OnesCount64(w)
		}
	}
	sort.SliceStable(order, func(a, b int) bool { return deg[order[a]] > deg[order[b]] })
	var best, cur []int
	budget := maximumCliqueBudget
	var expand func(p []uint64)
	expand = func(p []uint64) {
		count := 0
		for _, w := range p {
			count += bits.OnesCount64(w)
		}
		if count == 0 {
			if len(cur) > len(best) {
				best = append(best[:0], cur...)
			}
			return
		}
		for _, v := range order {
			if budget <= 0 || len(cur)+count <= len(best) {
				return
			}
			if p[v/64]&(1<<(v%64)) == 0 {
				continue
			}
			budget--
			next := make([]uint64, words)
			for w := range next {
				next[w] = p[w] & adj[v][w]
			}
			cur = append(cur, v)
			expand(next)
			cur = cur[:len(cur)-1]
			p[v/64] &^= 1 << (v % 64)
			count--
		}
	}
	all := make([]uint64, words)
	for v := 0; v < n; v++ {
		all[v/64] |= 1 << (v % 64)
	}
	expand(all)
	keep := make([]bool, n)
	for _, v := range best {
		keep[v] = true
	}
	return keep
}
