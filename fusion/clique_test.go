package fusion

import (
	"math"
	"sort"
	"testing"
	"time"

	"github.com/clearmatch/clearmatch/localmap"
)

// maxClique is Bailey et al.'s correspondence graph solved exactly: the
// nodes are every pairing of a landmark of a with one of b, two are
// joined when they pair different landmarks and preserve their distance
// within 2 tol, and the largest clique is found by branch and bound
// (candidates ordered by degree, bounded by the candidates left). It is
// the reference the consensus of align is measured against.
func maxClique(a, b *mapIndex, tol float64) [][2]int {
	var nodes [][2]int
	for i := range a.pts {
		for j := range b.pts {
			nodes = append(nodes, [2]int{i, j})
		}
	}
	d := func(p []geomPoint, x, y int) float64 { return math.Hypot(p[x].X-p[y].X, p[x].Y-p[y].Y) }
	pa, pb := toPoints(a), toPoints(b)
	adj := make([][]bool, len(nodes))
	deg := make([]int, len(nodes))
	for u := range nodes {
		adj[u] = make([]bool, len(nodes))
	}
	for u := range nodes {
		for v := u + 1; v < len(nodes); v++ {
			p, q := nodes[u], nodes[v]
			if p[0] != q[0] && p[1] != q[1] && math.Abs(d(pa, p[0], q[0])-d(pb, p[1], q[1])) <= 2*tol {
				adj[u][v], adj[v][u] = true, true
				deg[u]++
				deg[v]++
			}
		}
	}
	order := make([]int, len(nodes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return deg[order[x]] > deg[order[y]] })
	var best, cur []int
	var expand func(cands []int)
	expand = func(cands []int) {
		if len(cur) > len(best) {
			best = append(best[:0], cur...)
		}
		for k, v := range cands {
			if len(cur)+len(cands)-k <= len(best) {
				return
			}
			var next []int
			for _, w := range cands[k+1:] {
				if adj[v][w] {
					next = append(next, w)
				}
			}
			cur = append(cur, v)
			expand(next)
			cur = cur[:len(cur)-1]
		}
	}
	expand(order)
	out := make([][2]int, len(best))
	for k, u := range best {
		out[k] = nodes[u]
	}
	return out
}

type geomPoint struct{ X, Y float64 }

func toPoints(x *mapIndex) []geomPoint {
	out := make([]geomPoint, len(x.pts))
	for i, p := range x.pts {
		out[i] = geomPoint{p.X, p.Y}
	}
	return out
}

// TestConsensusAgainstMaxClique measures align's consensus against the
// exact maximum clique on the pairs of simulated 3 s maps that share five
// or more landmarks: the consensus must be as right and find nearly as
// many pairings, much faster.
func TestConsensusAgainstMaxClique(t *testing.T) {
	if testing.Short() {
		t.Skip("exact cliques take seconds")
	}
	s := simulated(t, 7, 3)
	tol := AutoTolerance(s)
	idx := make([]*mapIndex, len(s.Maps))
	for k := range s.Maps {
		idx[k] = newMapIndex(&s.Maps[k], tol, 6)
	}
	var rightC, allC, rightK, allK, pairs int
	var tc, tk time.Duration
	right := func(i, j int, ms [][2]int) int {
		n := 0
		for _, m := range ms {
			if s.Maps[i].Landmarks[m[0]].Truth == s.Maps[j].Landmarks[m[1]].Truth {
				n++
			}
		}
		return n
	}
	for i := 0; i < len(s.Maps); i++ {
		for j := i + 1; j < len(s.Maps) && j <= i+3; j++ {
			if shared(s.Maps[i], s.Maps[j]) < 5 {
				continue
			}
			pairs++
			t0 := time.Now()
			c := align(idx[i], idx[j], tol).matches
			tc += time.Since(t0)
			t0 = time.Now()
			k := maxClique(idx[i], idx[j], tol)
			tk += time.Since(t0)
			rightC, allC = rightC+right(i, j, c), allC+len(c)
			rightK, allK = rightK+right(i, j, k), allK+len(k)
		}
	}
	t.Logf("%d map pairs: consensus %d pairings, %d right, %v; max clique %d pairings, %d right, %v", pairs, allC, rightC, tc, allK, rightK, tk)
	if float64(rightC)/float64(allC) < float64(rightK)/float64(allK)-0.01 || rightC < rightK*9/10 {
		t.Errorf("consensus %d of %d right, max clique %d of %d", rightC, allC, rightK, allK)
	}
}

// shared counts the true landmarks two maps share.
func shared(a, b localmap.Map) int {
	in := map[string]bool{}
	for _, l := range a.Landmarks {
		in[l.Truth] = true
	}
	n := 0
	for _, l := range b.Landmarks {
		if in[l.Truth] {
			n++
		}
	}
	return n
}
