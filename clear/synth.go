package clear

import (
	"math"
	"math/rand/v2"
)

// SynthConfig describes a synthetic problem of the paper's simulations
// (section "Simulation Results"): a universe of Items items, Views views each
// observing round(ObsRatio·Items) items sampled uniformly without
// replacement (in random order), and the correct pairwise matches between
// every two views, of which the fraction Mismatch is reassigned at random.
type SynthConfig struct {
	Items    int
	Views    int
	ObsRatio float64
	Mismatch float64
	Seed     uint64
}

// Synthetic is a generated problem with its ground truth.
type Synthetic struct {
	Problem *Problem
	// Truth[i] is the universe item observation i belongs to.
	Truth []int
}

// Synthesize generates the problem described by cfg. A reassigned match
// (a, b) between views i and j points a at another observation b' of view j
// chosen uniformly; if b' is already the match of some a', the two swap, so
// every P_ij stays a partial permutation as in the paper's setting.
func Synthesize(cfg SynthConfig) Synthetic {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x5eed))
	per := int(math.Round(cfg.ObsRatio * float64(cfg.Items)))
	per = max(0, min(per, cfg.Items))
	p := &Problem{}
	var truth []int
	views := make([][]int, cfg.Views) // item of each observation, per view
	for v := range views {
		items := rng.Perm(cfg.Items)[:per]
		views[v] = items
		p.AddView(per)
		truth = append(truth, items...)
	}
	for i := 0; i < cfg.Views; i++ {
		pos := make(map[int]int, per) // item → local index in view j
		for j := i + 1; j < cfg.Views; j++ {
			clear(pos)
			for b, it := range views[j] {
				pos[it] = b
			}
			// Correct matches a → b, as local indices.
			target := make([]int, per)
			owner := make([]int, per) // local b → local a matched to it, or -1
			for b := range owner {
				owner[b] = -1
			}
			for a, it := range views[i] {
				target[a] = -1
				if b, ok := pos[it]; ok {
					target[a] = b
					owner[b] = a
				}
			}
			for a := range target {
				if target[a] < 0 || rng.Float64() >= cfg.Mismatch || per < 2 {
					continue
				}
				b := target[a]
				nb := rng.IntN(per - 1)
				if nb >= b {
					nb++
				}
				if a2 := owner[nb]; a2 >= 0 {
					target[a2], owner[b] = b, a2
				} else {
					owner[b] = -1
				}
				target[a], owner[nb] = nb, a
			}
			oi, oj := i*per, j*per
			for a, b := range target {
				if b >= 0 {
					p.Associations = append(p.Associations, Association{A: oi + a, B: oj + b})
				}
			}
		}
	}
	return Synthetic{Problem: p, Truth: truth}
}
