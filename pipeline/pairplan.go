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
	// (PlanStart, SetCodes).
	Index *retrieval.Index
	Best  []float64
	// codes, when set, gives an image's code instead of Index.Codes.
	codes func(i int) ([]float32, error)
}

// Plan selects the first round's pairs of the scene exactly as Run does.
func (s PairStage) Plan(ctx context.Context, env Env, scene *Scene) (*PairPlan, error) {
	if err := s.check(scene); err != nil {
		return nil, err
	}
	sel, err := selectPairs(ctx, Names(scene.Images), setSizes(scene.Sets), descriptors(scene.Sets, !s.Matching.NoRootSIFT), s.Matching.matcher(), s.Pairs, env)
	if err != nil {
		return nil, err
	}
	return sel.plan(), nil
}

// PlanEach is Plan for a caller that holds no feature sets: set(i) gives
// image i's set (or its extraction error) when the plan needs it, once
// for its feature count and twice more for retrieval's descriptors, so
// the plan holds counts and retrieval's codes, not the folder's features.
// It keeps the usable images as extraction does (strict:
// FeatureOptions.Strict) and returns them with the plan, whose pairs
// index them.
func (s PairStage) PlanEach(ctx context.Context, env Env, images []Image, set func(i int) (*features.Set, error), strict bool) (*PairPlan, []Image, error) {
	ims, sizes, desc, err := s.usableSets(ctx, images, set, strict)
	if err != nil {
		return nil, nil, err
	}
	sel, err := selectPairs(ctx, Names(ims), sizes, desc, s.Matching.matcher(), s.Pairs, env)
	if err != nil {
		return nil, nil, err
	}
	return sel.plan(), ims, nil
}

// PlanStart is PlanEach for a caller that codes and ranks the images
// itself, in shards (clearmatch-beam): with retrieval, it only trains the
// vocabulary, keeping its sample in the file s.Pairs.Retrieval.SampleFile
// when that is set, and returns a plan that is not Ready. The caller then
// codes every image (Code), ranks them (retrieval.Ranking with Neighbors'
// k and floor) and gives the result to Rank. The plan is the same as
// PlanEach's.
func (s PairStage) PlanStart(ctx context.Context, env Env, images []Image, set func(i int) (*features.Set, error), strict bool) (*PairPlan, []Image, error) {
	ims, sizes, desc, err := s.usableSets(ctx, images, set, strict)
	if err != nil {
		return nil, nil, err
	}
	sel, err := startSelection(Names(ims), s.Pairs)
	if err != nil {
		return nil, nil, err
	}
	p := sel.plan()
	if !sel.ranked() {
		return p, ims, nil
	}
	if p.Index, err = retrieval.Train(ctx, sizes, desc, features.DescSize, s.Matching.matcher(), s.Pairs.retrievalOptions(env)); err != nil {
		return nil, nil, err
	}
	return p, ims, nil
}

// usableSets reads every image's feature count and keeps the usable images as
// Extract does: it returns them, their counts and their descriptors as
// matched, read from set when needed.
func (s PairStage) usableSets(ctx context.Context, images []Image, set func(i int) (*features.Set, error), strict bool) ([]Image, []int, func(k int) ([]float32, error), error) {
	if err := s.validate(); err != nil {
		return nil, nil, nil, err
	}
	errs := make([]error, len(images))
	sizes := make([]int, len(images))
	for i := range images {
		if err := ctx.Err(); err != nil {
			return nil, nil, nil, err
		}
		fs, err := set(i)
		if errs[i] = err; err == nil {
			sizes[i] = fs.Len()
		}
	}
	kept, _, err := usableIndex(images, errs, strict)
	if err != nil {
		return nil, nil, nil, err
	}
	ims := make([]Image, len(kept))
	keptSizes := make([]int, len(kept))
	for k, i := range kept {
		ims[k], keptSizes[k] = images[i], sizes[i]
	}
	desc := loadDescriptors(func(k int) (*features.Set, error) { return set(kept[k]) }, !s.Matching.NoRootSIFT)
	return ims, keptSizes, desc, nil
}

// Ready reports whether the first round's pairs are chosen: false for
// PlanStart's plan with retrieval until Rank.
func (p *PairPlan) Ready() bool { return p.Index == nil || p.Best != nil }

// Code is an image's retrieval code from its feature set, as PlanEach
// computes it with the matching options o.
func (p *PairPlan) Code(s *features.Set, o MatchOptions) ([]float32, error) {
	if p.Index == nil {
		return nil, errors.New("pipeline: Code on a plan without retrieval")
	}
	d, err := loadDescriptors(func(int) (*features.Set, error) { return s, nil }, !o.NoRootSIFT)(0)
	if err != nil {
		return nil, err
	}
	return p.Index.Encode(d, o.matcher())
}

// Neighbors are the k and floor to rank images by (retrieval.Ranking).
func (p *PairPlan) Neighbors(o PairOptions) (k int, rel float64) {
	return o.k(), o.minRelative()
}

// Rank chooses the first round's pairs of a plan that is not Ready: nb[i]
// are image i's neighbours (retrieval.Ranking's) and best[i] its
// similarity to the first of them (retrieval.Similarity).
func (p *PairPlan) Rank(nb [][]int, best []float64, o PairOptions) error {
	if p.Ready() {
		return errors.New("pipeline: Rank on a plan that is ready")
	}
	sel := &selection{mode: p.Mode, considered: map[string]int{}}
	sel.rank(nb, best, o)
	p.First, p.Best = sel.pairs, sel.best
	if p.Best == nil {
		p.Best = []float64{}
	}
	return nil
}

// SetCodes makes completion read image i's code from code(i) rather than
// from Index, whose codes a plan from PlanStart does not hold.
func (p *PairPlan) SetCodes(code func(i int) ([]float32, error)) { p.codes = code }

// Rounds is how many completion rounds follow the first in stage s.
func (p *PairPlan) Rounds(s PairStage) int {
	if p.Index == nil || s.Verification.Off {
		return 0
	}
	return s.Pairs.CompletionRounds()
}

// Next is completion's next round, as the pairs stage proposes it with
// o: verified holds every pair verified so far (every round, in any
// order), tried every pair tried. Its error is SetCodes' function's.
func (p *PairPlan) Next(n int, verified []pairwise.Verified, tried map[[2]int]bool, o PairOptions) ([][2]int, error) {
	good := transitiveEvidence(verified, o.minInlierRatio())
	var err error
	sim := func(i, j int) float64 {
		if err != nil {
			return 0
		}
		var v float64
		v, err = p.similarity(i, j)
		return v
	}
	rel := o.minRelative()
	keep := func(i, j int) bool {
		v := sim(i, j)
		return v >= rel*p.Best[i] || v >= rel*p.Best[j]
	}
	next := retrieval.Complete(n, good, tried, o.k(), sim, keep)
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

var errNoPairCache = errors.New("pipeline: Verify needs the pair cache (Env.Cache.Pairs)")

// cachedVerifications appends to Verified the pairs whose verification
// the pair cache holds, and returns the others.
func (r *pairRun) cachedVerifications(pc *pairCache, pairs [][2]int, completion bool) [][2]int {
	probe := make([]pairwise.Pair, len(pairs))
	for k, p := range pairs {
		probe[k] = pairwise.Pair{I: p[0], J: p[1]} // the key needs no matches
	}
	hit, miss := pc.verified(probe, r.stage.verifyOptions(completion))
	r.Verified = append(r.Verified, hit...)
	todo := make([][2]int, len(miss))
	for k, p := range miss {
		todo[k] = [2]int{p.I, p.J}
	}
	return todo
}

// Verify matches and verifies pairs of the scene as Run does in a round
// (the first, or completion's with its inlier-ratio floor), storing each
// pair in env's pair cache (Env.Cache.Pairs), which must be set: a later
// Run on the same features finds them there. A pair's result depends only
// on its two images and s, so the scene may be any subset of the images
// (two, for one pair). A pair whose verification is cached is read as it
// is, without its ratio matches; the result lists those pairs first.
func (s PairStage) Verify(ctx context.Context, env Env, scene *Scene, pairs [][2]int, completion bool) ([]pairwise.Verified, error) {
	if err := s.check(scene); err != nil {
		return nil, err
	}
	if env.Cache.Pairs == "" {
		return nil, errNoPairCache
	}
	r := newPairRun(scene, s, env)
	in := newPairInputs(scene, s)
	pc, err := newPairCache(env.Cache.Pairs, scene, in.matcher, in.est, s)
	if err != nil {
		return nil, err
	}
	if s.Verification.Off {
		_, err := r.matchBatch(ctx, in, pc, pairs)
		return nil, err
	}
	todo := r.cachedVerifications(pc, pairs, completion)
	if len(todo) > 0 {
		ms, err := r.matchBatch(ctx, in, pc, todo)
		if err != nil {
			return nil, err
		}
		if err := r.verifyBatch(ctx, in, pc, ms, completion); err != nil {
			return nil, err
		}
	}
	if pc.err != nil {
		return nil, pc.err
	}
	return r.Verified, nil
}
