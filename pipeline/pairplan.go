package pipeline

import (
	"context"
	"errors"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/retrieval"
)

// PairPlan is Match's pair selection as data, so that the pair stages can
// run elsewhere (clearmatch-beam shards them): the first round's pairs and,
// with retrieval, what transitive completion needs for the next rounds.
// It holds no descriptors; it encodes with gob.
type PairPlan struct {
	Mode  string
	First [][2]int
	// Index and Best are retrieval's codes and each image's best
	// similarity (nil without retrieval: there are no further rounds).
	Index *retrieval.Index
	Best  []float64
}

// PlanPairs selects the first round's pairs of the images' feature sets
// exactly as Match does.
func PlanPairs(ctx context.Context, images []Image, sets []*features.Set, opts Options) (*PairPlan, error) {
	if err := opts.check(images, sets); err != nil {
		return nil, err
	}
	sel, err := selectPairs(ctx, Names(images), setSizes(sets), descriptors(sets, opts.Matching.RootSIFT), matcherOf(opts), opts)
	if err != nil {
		return nil, err
	}
	return sel.plan(), nil
}

// PlanPairsEach is PlanPairs for a caller that holds no feature sets:
// set(i) gives image i's set (or its extraction error) when the plan
// needs it, once for its feature count and twice more for retrieval's
// descriptors, so the plan holds counts and retrieval's codes, not the
// folder's features. It keeps the usable images as Extract does and
// returns them with the plan, whose pairs index them.
func PlanPairsEach(ctx context.Context, images []Image, set func(i int) (*features.Set, error), opts Options) (*PairPlan, []Image, error) {
	if err := opts.checkSteps(); err != nil {
		return nil, nil, err
	}
	errs := make([]error, len(images))
	sizes := make([]int, len(images))
	for i := range images {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		s, err := set(i)
		if errs[i] = err; err == nil {
			sizes[i] = s.Len()
		}
	}
	kept, _, err := usableIndex(images, errs, opts.Features.Strict)
	if err != nil {
		return nil, nil, err
	}
	keptImages := make([]Image, len(kept))
	keptSizes := make([]int, len(kept))
	for k, i := range kept {
		keptImages[k], keptSizes[k] = images[i], sizes[i]
	}
	desc := loadDescriptors(func(k int) (*features.Set, error) { return set(kept[k]) }, opts.Matching.RootSIFT)
	sel, err := selectPairs(ctx, Names(keptImages), keptSizes, desc, matcherOf(opts), opts)
	if err != nil {
		return nil, nil, err
	}
	return sel.plan(), keptImages, nil
}

// Rounds is how many completion rounds follow the first with opts.
func (p *PairPlan) Rounds(opts Options) int {
	if p.Index == nil || opts.Verification.Off {
		return 0
	}
	return opts.Pairs.Rounds
}

// Next is completion's next round, as Match proposes it: verified holds
// every pair verified so far (every round, in any order), tried every
// pair tried.
func (p *PairPlan) Next(n int, verified []pairwise.Verified, tried map[[2]int]bool, opts Options) [][2]int {
	good := transitiveEvidence(verified, opts.Pairs.CompletionMinInlierRatio)
	return retrieval.Complete(n, good, tried, opts.Pairs.k(), p.Index.Similarity, p.keep(opts.Pairs.minRelative()))
}

// keep is the similarity floor for completion's candidates: at least rel
// times either image's best similarity.
func (p *PairPlan) keep(rel float64) func(i, j int) bool {
	return func(i, j int) bool {
		v := p.Index.Similarity(i, j)
		return v >= rel*p.Best[i] || v >= rel*p.Best[j]
	}
}

var errNoPairCache = errors.New("pipeline: VerifyPairs needs the pair cache (Options.Cache.Pairs)")

// VerifyPairs matches and verifies pairs of sets (indices into sets) as
// Match does in a round (the first, or completion's with its inlier-ratio
// floor), storing each pair in the pair cache opts.Cache.Pairs, which must
// be set: a later Match on the same features finds them there. A pair's
// result depends only on its two sets and opts, so sets may be any subset
// of the images (two, for one pair).
func VerifyPairs(ctx context.Context, sets []*features.Set, pairs [][2]int, completion bool, opts Options) ([]pairwise.Verified, error) {
	images := make([]Image, len(sets))
	for i, s := range sets {
		images[i] = Image{Name: s.Image}
	}
	if err := opts.check(images, sets); err != nil {
		return nil, err
	}
	if opts.Cache.Pairs == "" {
		return nil, errNoPairCache
	}
	r := newResult(images, sets, opts)
	in := newPairInputs(r, opts)
	pc, err := newPairCache(opts.Cache.Pairs, r.Sets, r.PixelScale, in.matcher, in.est, opts)
	if err != nil {
		return nil, err
	}
	ms, err := r.matchBatch(ctx, in, pc, pairs, opts)
	if err != nil || opts.Verification.Off {
		return nil, err
	}
	if err := r.verifyBatch(ctx, in, pc, ms, completion, opts); err != nil {
		return nil, err
	}
	if pc.err != nil {
		return nil, pc.err
	}
	return r.Verified, nil
}
