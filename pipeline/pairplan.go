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
	// Index has no codes in a plan whose codes are kept elsewhere
	// (PlanPairsStart, SetCodes).
	Index *retrieval.Index
	Best  []float64
	// codes, when set, gives an image's code instead of Index.Codes.
	codes func(i int) ([]float32, error)
}

// PlanPairs selects the first round's pairs of the scene exactly as
// MatchPairs does.
func PlanPairs(ctx context.Context, scene *Scene, opts Options) (*PairPlan, error) {
	if err := opts.check(scene); err != nil {
		return nil, err
	}
	sel, err := selectPairs(ctx, Names(scene.Images), setSizes(scene.Sets), descriptors(scene.Sets, opts.Matching.RootSIFT), matcherOf(opts), opts)
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
	ims, sizes, desc, err := usableSets(ctx, images, set, opts)
	if err != nil {
		return nil, nil, err
	}
	sel, err := selectPairs(ctx, Names(ims), sizes, desc, matcherOf(opts), opts)
	if err != nil {
		return nil, nil, err
	}
	return sel.plan(), ims, nil
}

// PlanPairsStart is PlanPairsEach for a caller that codes and ranks the
// images itself, in shards (clearmatch-beam): with retrieval, it only
// trains the vocabulary, keeping its sample in the file
// opts.Pairs.Retrieval.SampleFile when that is set, and returns a plan
// that is not Ready. The caller then codes every image (Code), ranks them
// (retrieval.Ranking with Neighbors' k and floor) and gives the result to
// Rank. The plan is the same as PlanPairsEach's.
func PlanPairsStart(ctx context.Context, images []Image, set func(i int) (*features.Set, error), opts Options) (*PairPlan, []Image, error) {
	ims, sizes, desc, err := usableSets(ctx, images, set, opts)
	if err != nil {
		return nil, nil, err
	}
	sel, err := startSelection(Names(ims), opts)
	if err != nil {
		return nil, nil, err
	}
	p := sel.plan()
	if !sel.ranked() {
		return p, ims, nil
	}
	if p.Index, err = retrieval.Train(ctx, sizes, desc, features.DescSize, matcherOf(opts), opts.retrievalOptions()); err != nil {
		return nil, nil, err
	}
	return p, ims, nil
}

// usableSets reads every image's feature count and keeps the usable images as
// Extract does: it returns them, their counts and their descriptors as
// matched, read from set when needed.
func usableSets(ctx context.Context, images []Image, set func(i int) (*features.Set, error), opts Options) ([]Image, []int, func(k int) ([]float32, error), error) {
	if err := opts.checkSteps(); err != nil {
		return nil, nil, nil, err
	}
	errs := make([]error, len(images))
	sizes := make([]int, len(images))
	for i := range images {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		s, err := set(i)
		if errs[i] = err; err == nil {
			sizes[i] = s.Len()
		}
	}
	kept, _, err := usableIndex(images, errs, opts.Features.Strict)
	if err != nil {
		return nil, nil, nil, err
	}
	ims := make([]Image, len(kept))
	keptSizes := make([]int, len(kept))
	for k, i := range kept {
		ims[k], keptSizes[k] = images[i], sizes[i]
	}
	desc := loadDescriptors(func(k int) (*features.Set, error) { return set(kept[k]) }, opts.Matching.RootSIFT)
	return ims, keptSizes, desc, nil
}

// Ready reports whether the first round's pairs are chosen: false for
// PlanPairsStart's plan with retrieval until Rank.
func (p *PairPlan) Ready() bool { return p.Index == nil || p.Best != nil }

// Code is an image's retrieval code from its feature set, as
// PlanPairsEach computes it.
func (p *PairPlan) Code(s *features.Set, opts Options) ([]float32, error) {
	if p.Index == nil {
		return nil, errors.New("pipeline: Code on a plan without retrieval")
	}
	d, err := loadDescriptors(func(int) (*features.Set, error) { return s, nil }, opts.Matching.RootSIFT)(0)
	if err != nil {
		return nil, err
	}
	return p.Index.Encode(d, matcherOf(opts))
}

// Neighbors are the k and floor to rank images by (retrieval.Ranking).
func (p *PairPlan) Neighbors(opts Options) (k int, rel float64) {
	return opts.Pairs.k(), opts.Pairs.minRelative()
}

// Rank chooses the first round's pairs of a plan that is not Ready: nb[i]
// are image i's neighbours (retrieval.Ranking's) and best[i] its
// similarity to the first of them (retrieval.Similarity).
func (p *PairPlan) Rank(nb [][]int, best []float64, opts Options) error {
	if p.Ready() {
		return errors.New("pipeline: Rank on a plan that is ready")
	}
	sel := &selection{mode: p.Mode, considered: map[string]int{}}
	sel.rank(nb, best, opts)
	p.First, p.Best = sel.pairs, sel.best
	if p.Best == nil {
		p.Best = []float64{}
	}
	return nil
}

// SetCodes makes completion read image i's code from code(i) rather than
// from Index, whose codes a plan from PlanPairsStart does not hold.
func (p *PairPlan) SetCodes(code func(i int) ([]float32, error)) { p.codes = code }

// Rounds is how many completion rounds follow the first with opts.
func (p *PairPlan) Rounds(opts Options) int {
	if p.Index == nil || opts.Verification.Off {
		return 0
	}
	return opts.Pairs.Rounds
}

// Next is completion's next round, as Match proposes it: verified holds
// every pair verified so far (every round, in any order), tried every
// pair tried. Its error is SetCodes' function's.
func (p *PairPlan) Next(n int, verified []pairwise.Verified, tried map[[2]int]bool, opts Options) ([][2]int, error) {
	good := transitiveEvidence(verified, opts.Pairs.CompletionMinInlierRatio)
	var err error
	sim := func(i, j int) float64 {
		if err != nil {
			return 0
		}
		var v float64
		v, err = p.similarity(i, j)
		return v
	}
	rel := opts.Pairs.minRelative()
	keep := func(i, j int) bool {
		v := sim(i, j)
		return v >= rel*p.Best[i] || v >= rel*p.Best[j]
	}
	next := retrieval.Complete(n, good, tried, opts.Pairs.k(), sim, keep)
	if err != nil {
		return nil, err
	}
	return next, nil
}

// similarity is images i and j's similarity, from their codes.
func (p *PairPlan) similarity(i, j int) (float64, error) {
	if p.codes == nil {
		if len(p.Index.Codes) <= max(i, j) {
			return 0, errNoCodes
		}
		return p.Index.Similarity(i, j), nil
	}
	a, err := p.codes(i)
	if err != nil {
		return 0, err
	}
	b, err := p.codes(j)
	if err != nil {
		return 0, err
	}
	return retrieval.Similarity(a, b), nil
}

var errNoCodes = errors.New("pipeline: the plan holds no retrieval codes: give them with SetCodes")

var errNoPairCache = errors.New("pipeline: VerifyPairs needs the pair cache (Options.Cache.Pairs)")

// cachedVerifications appends to Verified the pairs whose verification
// the pair cache holds, and returns the others.
func (r *pairRun) cachedVerifications(pc *pairCache, pairs [][2]int, completion bool, opts Options) [][2]int {
	probe := make([]pairwise.Pair, len(pairs))
	for k, p := range pairs {
		probe[k] = pairwise.Pair{I: p[0], J: p[1]} // the key needs no matches
	}
	hit, miss := pc.verified(probe, opts.verifyOptions(completion))
	r.Verified = append(r.Verified, hit...)
	todo := make([][2]int, len(miss))
	for k, p := range miss {
		todo[k] = [2]int{p.I, p.J}
	}
	return todo
}

// VerifyPairs matches and verifies pairs of the scene as MatchPairs does
// in a round (the first, or completion's with its inlier-ratio floor),
// storing each pair in the pair cache opts.Cache.Pairs, which must be set:
// a later MatchPairs on the same features finds them there. A pair's
// result depends only on its two images and opts, so the scene may be any
// subset of the images (two, for one pair). A pair whose verification is
// cached is read as it is, without its ratio matches; the result lists
// those pairs first.
func VerifyPairs(ctx context.Context, scene *Scene, pairs [][2]int, completion bool, opts Options) ([]pairwise.Verified, error) {
	if err := opts.check(scene); err != nil {
		return nil, err
	}
	if opts.Cache.Pairs == "" {
		return nil, errNoPairCache
	}
	r := newPairRun(scene, opts)
	in := newPairInputs(scene, opts)
	pc, err := newPairCache(opts.Cache.Pairs, scene, in.matcher, in.est, opts)
	if err != nil {
		return nil, err
	}
	if opts.Verification.Off {
		_, err := r.matchBatch(ctx, in, pc, pairs, opts)
		return nil, err
	}
	todo := r.cachedVerifications(pc, pairs, completion, opts)
	if len(todo) > 0 {
		ms, err := r.matchBatch(ctx, in, pc, todo, opts)
		if err != nil {
			return nil, err
		}
		if err := r.verifyBatch(ctx, in, pc, ms, completion, opts); err != nil {
			return nil, err
		}
	}
	if pc.err != nil {
		return nil, pc.err
	}
	return r.Verified, nil
}
