package pipeline

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Match runs the steps after extraction on given feature sets (one per
// image, in order): select pairs, match, verify (unless
// opts.Verification.Off), solve, and the track stages.
func Match(ctx context.Context, images []Image, sets []*features.Set, opts Options) (*Result, error) {
	if err := opts.check(images, sets); err != nil {
		return nil, err
	}
	r := newResult(images, sets, opts)
	in := newPairInputs(r, opts)
	if err := r.matchPairs(ctx, in, opts); err != nil {
		return nil, err
	}
	return r.solveAndTrack(ctx, opts)
}

// solveAndTrack runs CLEAR on the verified pairs, then the track stages:
// the steps after verification, whoever made the pairs.
func (r *Result) solveAndTrack(ctx context.Context, opts Options) (*Result, error) {
	if err := r.solve(ctx, opts); err != nil {
		return nil, err
	}
	if err := r.trackStages(ctx, opts); err != nil {
		return nil, err
	}
	return r, nil
}

// check reports options Match cannot use, and feature sets that do not
// fit the images.
func (o Options) check(images []Image, sets []*features.Set) error {
	if len(images) != len(sets) {
		return fmt.Errorf("pipeline: %d images and %d feature sets", len(images), len(sets))
	}
	for i, s := range sets {
		if !descriptorsFit(s) {
			return fmt.Errorf("pipeline: image %d has %d descriptor values for %d features", i, len(s.Desc)+len(s.Desc8), s.Len())
		}
	}
	return o.checkSteps()
}

// descriptorsFit reports whether s holds one descriptor per keypoint, or
// has released them to the descriptor cache, which holds them.
func descriptorsFit(s *features.Set) bool {
	return s.Released() || len(s.Desc)+len(s.Desc8) == s.Len()*features.DescSize
}

// checkSteps reports options of the steps after extraction that Match
// cannot use.
func (o Options) checkSteps() error {
	if !o.Verification.Off {
		if err := o.Verification.Validate(); err != nil {
			return err
		}
	}
	if err := o.Pairs.validate(); err != nil {
		return err
	}
	return o.Tracks.Validate()
}

// newResult starts the result: the images, their features and, with
// verification, the detection resolution of each image.
func newResult(images []Image, sets []*features.Set, opts Options) *Result {
	r := &Result{Images: images, Sets: sets}
	if opts.Verification.Off {
		return r
	}
	r.PixelThreshold = opts.Verification.Threshold
	if r.PixelThreshold == 0 {
		r.PixelThreshold = pairwise.DefaultVerifyThreshold
	}
	r.PixelScale = make([]float64, len(sets))
	for i, s := range sets {
		r.PixelScale[i] = pixelScale(s, opts.Features.MaxDim)
	}
	return r
}

// pairInputs are what matching and verification read: descriptors as
// matched, the matcher, the views and the estimator.
type pairInputs struct {
	desc    func(i int) ([]float32, error)
	matcher pairwise.Matcher
	views   []pairwise.View // nil without verification
	est     pairwise.Estimator
}

func newPairInputs(r *Result, opts Options) *pairInputs {
	in := &pairInputs{desc: descriptors(r.Sets, opts.Matching.RootSIFT), matcher: matcherOf(opts), est: opts.Verification.Estimator}
	if in.est == nil {
		in.est = features.CVEstimator{}
	}
	if !opts.Verification.Off {
		in.views = make([]pairwise.View, len(r.Sets))
		for i, s := range r.Sets {
			in.views[i] = pairwise.View{Points: s.Points(), Intrinsics: opts.Verification.Intrinsics, PixelScale: r.PixelScale[i]}
		}
	}
	return in
}

// matcherOf is opts' matcher: the BLAS matcher unless one is given (pure
// Go without OpenCV).
func matcherOf(opts Options) pairwise.Matcher {
	switch {
	case opts.Matching.Matcher != nil:
		return opts.Matching.Matcher
	case features.OpenCV:
		return features.BLASMatcher{}
	}
	return pairwise.BruteForce{}
}

// descriptors returns image i's descriptors as matched, made per use from
// the sets (which may hold them as bytes): RootSIFT is computed per pair,
// not kept for every image, so memory holds one compact copy of the
// folder's descriptors. Released sets (features.DescriptorCache) read
// them back when needed.
func descriptors(sets []*features.Set, rootSIFT bool) func(i int) ([]float32, error) {
	return loadDescriptors(func(i int) (*features.Set, error) { return sets[i], nil }, rootSIFT)
}

// loadDescriptors is descriptors for sets got from set(i) when needed.
func loadDescriptors(set func(i int) (*features.Set, error), rootSIFT bool) func(i int) ([]float32, error) {
	return func(i int) ([]float32, error) {
		s, err := set(i)
		if err != nil {
			return nil, err
		}
		d, err := s.LoadFloats()
		if err != nil {
			return nil, err
		}
		if rootSIFT {
			if s.Desc != nil { // d is the caller's Desc itself
				d = append([]float32(nil), d...)
			}
			features.RootSIFT(d)
		}
		return d, nil
	}
}

// pixelScale is how many full-resolution pixels one pixel of the
// detection image spans (features are detected downscaled to maxDim).
func pixelScale(s *features.Set, maxDim int) float64 {
	if m := max(s.Width, s.Height); maxDim > 0 && m > maxDim {
		return float64(m) / float64(maxDim)
	}
	return 1
}

// matchPairs selects the pairs, matches and verifies them, in rounds when
// retrieval's transitive completion proposes more, and fills Matches,
// Verified and the pair bookkeeping, sorted by pair.
func (r *Result) matchPairs(ctx context.Context, in *pairInputs, opts Options) error {
	t0 := time.Now()
	sel, err := selectPairs(ctx, Names(r.Images), setSizes(r.Sets), in.desc, in.matcher, opts)
	if err != nil {
		return err
	}
	plan := sel.plan()
	r.Timing.Select = time.Since(t0)
	var pc *pairCache
	if opts.Cache.Pairs != "" {
		if pc, err = newPairCache(opts.Cache.Pairs, r.Sets, r.PixelScale, in.matcher, in.est, opts); err != nil {
			return err
		}
	}
	tried := map[[2]int]bool{}
	source := map[[2]int]string{}
	batch, proposed := sel.pairs, len(sel.pairs)
	for round := 0; proposed > 0; round++ {
		for k, p := range batch {
			tried[p] = true
			if _, ok := source[p]; !ok {
				source[p] = sel.source[k]
			}
		}
		ms, err := r.matchBatch(ctx, in, pc, batch, opts)
		if err != nil {
			return err
		}
		if opts.Verification.Off {
			break
		}
		if err := r.verifyBatch(ctx, in, pc, ms, round > 0, opts); err != nil {
			return err
		}
		if round >= plan.Rounds(opts) {
			break
		}
		if batch, proposed, err = r.completionPairs(sel, plan, tried, opts); err != nil {
			return err
		}
	}
	r.sortPairs(sel, source, pc)
	return nil
}

// matchBatch matches the pairs of batch (those not in the pair cache) and
// appends them to Matches.
func (r *Result) matchBatch(ctx context.Context, in *pairInputs, pc *pairCache, batch [][2]int, opts Options) ([]pairwise.Pair, error) {
	t := time.Now()
	mo := pairwise.Options{Ratio: opts.Matching.Ratio, Mutual: opts.Matching.Mutual, Workers: opts.Workers, Pairs: batch}
	mo.Progress = offsetProgress(opts.Progress, StageMatch, len(r.Matches))
	var ms []pairwise.Pair
	if pc != nil {
		ms, mo.Pairs = pc.matches(batch)
		mo.OnPair = pc.storeMatches
	}
	if len(mo.Pairs) > 0 {
		done, err := pairwise.MatchAllFunc(ctx, len(r.Sets), in.desc, features.DescSize, in.matcher, mo)
		if err != nil {
			return nil, err
		}
		ms = append(ms, done...)
	}
	r.Matches = append(r.Matches, ms...)
	r.Timing.Match += time.Since(t)
	return ms, nil
}

// verifyBatch verifies the pairs of ms (those not in the pair cache) and
// appends them to Verified; completion's pairs get its inlier-ratio floor.
func (r *Result) verifyBatch(ctx context.Context, in *pairInputs, pc *pairCache, ms []pairwise.Pair, completion bool, opts Options) error {
	t := time.Now()
	vo := opts.verifyOptions(completion)
	vo.Workers = opts.Workers
	vo.Descriptors = in.desc // only guided matching reads them, per pair
	vo.Progress = offsetProgress(opts.Progress, StageVerify, len(r.Verified))
	var vs []pairwise.Verified
	todo := ms
	if pc != nil {
		vs, todo = pc.verified(ms, vo)
		vo.OnPair = pc.storeVerified(vo)
	}
	if len(todo) > 0 {
		done, err := pairwise.Verify(ctx, in.views, features.DescSize, todo, in.est, vo)
		if err != nil {
			return err
		}
		vs = append(vs, done...)
	}
	r.Verified = append(r.Verified, vs...)
	r.Timing.Verify += time.Since(t)
	return nil
}

// verifyOptions are verification's options for a round's pairs:
// completion's get its inlier-ratio floor.
func (o Options) verifyOptions(completion bool) pairwise.VerifyOptions {
	vo := o.Verification.VerifyOptions
	if completion {
		vo.MinInlierRatio = max(vo.MinInlierRatio, o.Pairs.CompletionMinInlierRatio)
	}
	return vo
}

// completionPairs is retrieval's next round: pairs that transitive
// completion proposes over the verified pairs at or above its inlier-ratio
// floor, not tried yet, less those the chain test rejects, and how many it
// proposed. Pairs verified below the floor stay verified but are not
// evidence for transitivity. Completion ends when it proposes nothing, not
// when the chain test rejects every proposal: the rejected pairs count as
// tried, so the next round may propose others (as clearmatch-beam's rounds
// do).
func (r *Result) completionPairs(sel *selection, plan *PairPlan, tried map[[2]int]bool, opts Options) ([][2]int, int, error) {
	proposed, err := plan.Next(len(r.Sets), r.Verified, tried, opts)
	if err != nil {
		return nil, 0, err
	}
	sel.considered[SourceCompletion] += len(proposed)
	batch := r.chained(proposed, tried, opts.Pairs.CompletionMinChains)
	sel.source = make([]string, len(batch))
	for k := range sel.source {
		sel.source[k] = SourceCompletion
	}
	return batch, len(proposed), nil
}

// chained keeps the pairs of batch with at least min chains
// (ChainSupport) and marks the others tried, so that a later round
// proposes other pairs in their place, as it does after a pair that
// failed verification. min 0 keeps every pair.
func (r *Result) chained(batch [][2]int, tried map[[2]int]bool, min int) [][2]int {
	if min <= 0 || len(batch) == 0 {
		return batch
	}
	support := ChainSupport(r.Verified, batch)
	var kept [][2]int
	for k, p := range batch {
		if support[k] >= min {
			kept = append(kept, p)
		} else {
			tried[p] = true
		}
	}
	return kept
}

// transitiveEvidence is the verified pairs whose inliers are at least
// floor times their ratio matches.
func transitiveEvidence(vs []pairwise.Verified, floor float64) [][2]int {
	var good [][2]int
	for _, v := range vs {
		if v.Model != pairwise.NoModel && float64(v.Inliers) >= floor*float64(v.Candidates) {
			good = append(good, [2]int{v.I, v.J})
		}
	}
	return good
}

// sortPairs sorts Matches and Verified by pair and records where each
// pair came from and what the pair cache did.
func (r *Result) sortPairs(sel *selection, source map[[2]int]string, pc *pairCache) {
	order := func(i, j, k, l int) int {
		if i != k {
			return i - k
		}
		return j - l
	}
	slices.SortFunc(r.Matches, func(a, b pairwise.Pair) int { return order(a.I, a.J, b.I, b.J) })
	slices.SortFunc(r.Verified, func(a, b pairwise.Verified) int { return order(a.I, a.J, b.I, b.J) })
	r.PairMode = sel.mode
	r.PairSources = make([]string, len(r.Matches))
	for k, m := range r.Matches {
		r.PairSources[k] = source[[2]int{m.I, m.J}]
	}
	r.PairsConsidered = sel.considered
	if pc != nil {
		r.PairCacheHits = [2]int{pc.hitMatch, pc.hitVerif}
		r.PairCacheError = pc.err
	}
}

// solve builds CLEAR's problem from the pairs and solves it.
func (r *Result) solve(ctx context.Context, opts Options) error {
	counts := make([]int, len(r.Sets))
	for i, s := range r.Sets {
		counts[i] = s.Len()
	}
	var err error
	if r.Problem, err = pairwise.Problem(counts, r.Pairs(), opts.Solve.Weighted); err != nil {
		return err
	}
	t := time.Now()
	co := opts.Solve.Options
	if sr, ok := opts.Progress.(StatusReporter); ok && co.Status == nil && co.Progress == nil {
		co.Status = func(st clear.SolveStatus) { sr.Status(StageSolve, st.Done, st.Total, st.String()) }
	} else if co.Progress == nil && opts.Progress != nil {
		co.Progress = stageProgress(opts.Progress, StageSolve)
	}
	solve := opts.Solve.Solver
	switch {
	case opts.Solve.UnionFind:
		solve = func(context.Context, *clear.Problem, *clear.Options) (*clear.Result, error) {
			return unionFind(r.Problem)
		}
	case solve == nil:
		solve = clear.SolveContext
	}
	if r.Clear, err = solve(ctx, r.Problem, &co); err != nil {
		return err
	}
	r.Item, r.Foreign, err = dropForeign(r.Problem, r.Clear.Item)
	r.Timing.Solve = time.Since(t)
	return err
}
