package multiway

import (
	"math"
	"math/rand/v2"

	"github.com/clearmatch/clearmatch/clear"
)

// SynthConfig describes a synthetic problem of the CLEAR paper's
// comparison (Fig. "AgentCompare"): a universe of Items items, Views views
// each observing round(ObsRatio·Items) items chosen uniformly (in random
// order), and round(Mismatch·Σ_{i<j} min(m_i, m_j)) wrong matches spread
// uniformly at random over the view pairs.
type SynthConfig struct {
	Items    int
	Views    int
	ObsRatio float64
	Mismatch float64
	Seed     uint64
}

// Synthesize generates the problem described by cfg with the paper's
// mismatch rule. Each wrong match picks a view pair uniformly (with
// replacement). In the block P_ij (i < j) of a pair that gets c of them, c
// distinct rows chosen at random are disturbed: one row (c = 1) is
// circularly shifted by one column; several are permuted cyclically. The
// result is symmetrized (P_ji = P_ijᵀ), so a block need not stay a partial
// permutation, as in the paper. Views of equal size (as here) disturb rows;
// a block with fewer rows than columns would too, and one with more would
// disturb columns.
func Synthesize(cfg SynthConfig) clear.Synthetic {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0xc1ea7))
	per := int(math.Round(cfg.ObsRatio * float64(cfg.Items)))
	per = max(0, min(per, cfg.Items))
	p := &clear.Problem{}
	var truth []int
	views := make([][]int, cfg.Views)
	for v := range views {
		views[v] = rng.Perm(cfg.Items)[:per]
		p.AddView(per)
		truth = append(truth, views[v]...)
	}
	type vp struct{ i, j int }
	var pairs []vp
	for i := 0; i < cfg.Views; i++ {
		for j := i + 1; j < cfg.Views; j++ {
			pairs = append(pairs, vp{i, j})
		}
	}
	count := make([]int, len(pairs))
	if len(pairs) > 0 {
		wrong := int(math.Round(cfg.Mismatch * float64(len(pairs)*per)))
		for range wrong {
			count[rng.IntN(len(pairs))]++
		}
	}
	var pos map[int]int
	for k, pr := range pairs {
		pos = make(map[int]int, per)
		for b, it := range views[pr.j] {
			pos[it] = b
		}
		target := make([]int, per) // row a's column, −1 for none
		for a, it := range views[pr.i] {
			target[a] = -1
			if b, ok := pos[it]; ok {
				target[a] = b
			}
		}
		if c := min(count[k], per); c == 1 {
			r := rng.IntN(per)
			if target[r] >= 0 {
				target[r] = (target[r] + 1) % per
			}
		} else if c > 1 {
			rows := rng.Perm(per)[:c]
			old := make([]int, c)
			for t, r := range rows {
				old[t] = target[r]
			}
			for t, r := range rows {
				target[r] = old[(t+c-1)%c]
			}
		}
		oi, oj := pr.i*per, pr.j*per
		for a, b := range target {
			if b >= 0 {
				p.Associations = append(p.Associations, clear.Association{A: oi + a, B: oj + b})
			}
		}
	}
	return clear.Synthetic{Problem: p, Truth: truth}
}
