package main

import (
	"context"
	"slices"

	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/pipeline"
)

// chainBatch is pairs completion proposed, with each pair's hubs: the
// images verified with both of its images.
type chainBatch struct {
	Round int
	Pairs [][2]int
	Hubs  [][]int
}

// chainFn is completion's chain test (PairOptions.CompletionChains),
// as match runs it: it reads each proposed pair's hub pairs from the pair
// cache, emits the pairs with enough chains to be matched and the others
// as rejected results, which the next round counts as tried.
type chainFn struct {
	job
	first map[[2]int]bool // the first round's pairs (not completion's)
}

func (f *chainFn) ProcessElement(ctx context.Context, b chainBatch, emit func(pairBatch), emitTried func(pairResult)) error {
	least := f.m.Options.Pairs.CompletionChains()
	if least <= 0 {
		emit(pairBatch{Round: b.Round, Pairs: b.Pairs})
		return nil
	}
	o, release, err := f.begin(ctx)
	if err != nil {
		return err
	}
	defer release()
	var kept [][2]int
	var most int64
	for _, g := range chainGroups(b, imagesPerGroup) {
		support, held, err := f.support(ctx, b, g, o)
		if err != nil {
			return err
		}
		most = max(most, held)
		for k, i := range g {
			if p := b.Pairs[i]; support[k] >= least {
				kept = append(kept, p)
			} else {
				emitTried(pairResult{I: p[0], J: p[1], Model: int(pairwise.NoModel)})
			}
		}
	}
	recordBundle(ctx, "chains", most)
	if len(kept) > 0 {
		emit(pairBatch{Round: b.Round, Pairs: kept})
	}
	return nil
}

// support returns the chains of the batch's pairs g (indices into
// b.Pairs) and the bytes it held: their images' sets and the hub pairs'
// verified matches, read from the pair cache.
func (f *chainFn) support(ctx context.Context, b chainBatch, g []int, o pipeline.Options) ([]int, int64, error) {
	var ims []int
	var first, later [][2]int
	for _, i := range g {
		a, c := b.Pairs[i][0], b.Pairs[i][1]
		ims = append(ims, a, c)
		for _, h := range b.Hubs[i] {
			ims = append(ims, h)
			for _, p := range [][2]int{{min(a, h), max(a, h)}, {min(h, c), max(h, c)}} {
				if f.isFirst(p) {
					first = append(first, p)
				} else {
					later = append(later, p)
				}
			}
		}
	}
	ims, local, sets, err := f.localSets(ctx, ims, o)
	if err != nil {
		return nil, 0, err
	}
	var vs []pairwise.Verified
	for round, ps := range [][][2]int{first, later} {
		if len(ps) == 0 {
			continue
		}
		slices.SortFunc(ps, comparePairs)
		scene, err := f.scene(ims, sets)
		if err != nil {
			return nil, 0, err
		}
		got, err := o.PairStage().Verify(ctx, o.Env, scene, localPairs(slices.Compact(ps), local), round > 0)
		if err != nil {
			return nil, 0, err
		}
		for _, v := range got {
			v.I, v.J = ims[v.I], ims[v.J]
			vs = append(vs, v)
		}
	}
	pairs := make([][2]int, len(g))
	for k, i := range g {
		pairs[k] = b.Pairs[i]
	}
	return pipeline.ChainSupport(vs, pairs), setsBytes(sets) + verifiedBytes(vs), nil
}

// isFirst reports whether p was a first-round pair, verified without
// completion's inlier-ratio floor: the pair cache keys it so.
func (f *chainFn) isFirst(p [2]int) bool {
	if f.first == nil {
		f.first = make(map[[2]int]bool, len(f.plan.Plan.First))
		for _, q := range f.plan.Plan.First {
			f.first[q] = true
		}
	}
	return f.first[p]
}

func comparePairs(p, q [2]int) int {
	if p[0] != q[0] {
		return p[0] - q[0]
	}
	return p[1] - q[1]
}

// chainGroups splits the batch's pairs, in order, into runs whose pairs
// and hubs read at most max images (a run of one pair when its own are
// more); each run is a list of indices into b.Pairs.
func chainGroups(b chainBatch, max int) [][]int {
	return imageGroups(len(b.Pairs), func(i int) []int { return append([]int{b.Pairs[i][0], b.Pairs[i][1]}, b.Hubs[i]...) }, max)
}

// hubsOf returns, for each pair, its hubs (pipeline.ChainHubs) among the
// pairs verified so far.
func hubsOf(pairs [][2]int, results []pairResult) [][]int {
	var verified [][2]int
	for _, r := range results {
		if r.Model != int(pairwise.NoModel) {
			verified = append(verified, [2]int{r.I, r.J})
		}
	}
	return pipeline.ChainHubs(verified, pairs)
}
