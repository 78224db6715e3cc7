// Package assignment solves the rectangular linear assignment problem, for
// CLEAR's optimal assignment and NMFSync's per-view assignment.
package assignment

import "math"

// Min solves the rectangular assignment problem min Σ cost[r][asg[r]]
// for nr ≤ nc (row-major cost), each row to a distinct column, by the
// shortest augmenting path method with potentials (Kuhn–Munkres), O(nr²·nc).
func Min(cost []float64, nr, nc int) []int {
	inf := math.Inf(1)
	u := make([]float64, nr+1)
	v := make([]float64, nc+1)
	p := make([]int, nc+1) // p[j]: row (1-based) matched to column j; 0 = none
	way := make([]int, nc+1)
	minv := make([]float64, nc+1)
	used := make([]bool, nc+1)
	for i := 1; i <= nr; i++ {
		p[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = inf
			used[j] = false
		}
		for {
			used[j0] = true
			i0 := p[j0]
			delta := inf
			j1 := 0
			for j := 1; j <= nc; j++ {
				if used[j] {
					continue
				}
				cur := cost[(i0-1)*nc+j-1] - u[i0] - v[j]
				if cur < minv[j] {
					minv[j] = cur
					way[j] = j0
				}
				if minv[j] < delta {
					delta = minv[j]
					j1 = j
				}
			}
			for j := 0; j <= nc; j++ {
				if used[j] {
					u[p[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if p[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			p[j0] = p[j1]
			j0 = j1
		}
	}
	asg := make([]int, nr)
	for j := 1; j <= nc; j++ {
		if p[j] > 0 {
			asg[p[j]-1] = j - 1
		}
	}
	return asg
}
