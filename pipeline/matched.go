package pipeline

import (
	"cmp"
	"context"
	"slices"
	"time"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Matched is the pairs stage's output, read-only afterwards: every pair
// matched with its ratio matches and its verification, sorted by pair, and
// where each pair came from.
type Matched struct {
	// Matches are the ratio-test matches of every pair matched.
	Matches []pairwise.Pair
	// PairMode is how the pairs were chosen (auto resolved: exhaustive,
	// sequential, retrieval, or "given" for PairOptions.List and
	// MatchGiven), PairSources which source proposed each pair of Matches
	// first, and PairsConsidered how many pairs each source proposed in
	// all.
	PairMode        string
	PairSources     []string
	PairsConsidered map[string]int
	// Verified holds the verification of every pair, in Matches' order
	// (nil when verification is off).
	Verified []pairwise.Verified
	// PixelThreshold is the largest model error of a verified match, in
	// pixels of the detection resolution (Scene.Scale).
	PixelThreshold float64
	// PairCacheHits counts the pairs whose matches and whose verification
	// came from the pair cache; PairCacheError, when not nil, is why it
	// stopped storing part-way (the run went on without it).
	PairCacheHits  [2]int
	PairCacheError error
	// Time is each step's wall time.
	Time PairTiming
}

// PairTiming is the pairs stage's wall time per step: Select is pair
// selection (the retrieval index; 0 otherwise).
type PairTiming struct{ Select, Match, Verify time.Duration }

// Pairs returns the pairs that go into CLEAR (verified ones only, when
// verification is on).
func (m *Matched) Pairs() []pairwise.Pair { return clearPairs(m.Matches, m.Verified) }

// clearPairs are CLEAR's pairs: the verified ones of verified, or matches
// when verification is off (verified nil).
func clearPairs(matches []pairwise.Pair, verified []pairwise.Verified) []pairwise.Pair {
	if verified == nil {
		return matches
	}
	var out []pairwise.Pair
	for _, v := range verified {
		if v.Model != pairwise.NoModel {
			out = append(out, pairwise.Pair{I: v.I, J: v.J, Matches: v.Matches})
		}
	}
	return out
}

// PairStage is the pairs stage as a value: which pairs of the scene,
// their ratio matching and their verification (Options.PairStage).
type PairStage struct {
	Pairs        PairOptions
	Matching     MatchOptions
	Verification VerifyOptions
}

// Run is the pairs stage: it selects the pairs of the scene, matches and
// verifies them (unless s.Verification.Off), in rounds when retrieval's
// transitive completion proposes more.
func (s PairStage) Run(ctx context.Context, env Env, scene *Scene) (*Matched, error) {
	if err := s.check(scene); err != nil {
		return nil, err
	}
	r := newPairRun(scene, s, env)
	if err := r.matchPairs(ctx, newPairInputs(scene, s)); err != nil {
		return nil, err
	}
	return r.Matched, nil
}

// pairRun is a Matched being built for its scene by its stage, in env.
type pairRun struct {
	*Scene
	*Matched
	stage PairStage
	env   Env
}

// newPairRun starts the pairs of scene, with verification's threshold.
func newPairRun(scene *Scene, s PairStage, env Env) *pairRun {
	r := &pairRun{Scene: scene, Matched: &Matched{}, stage: s, env: env}
	if !s.Verification.Off {
		r.PixelThreshold = cmp.Or(s.Verification.Threshold, pairwise.DefaultVerifyThreshold)
	}
	return r
}

// matchPairs selects the pairs, matches and verifies them, in rounds when
// retrieval's transitive completion proposes more, and fills Matches,
// Verified and the pair bookkeeping, sorted by pair.
func (r *pairRun) matchPairs(ctx context.Context, in *pairInputs) error {
	t0 := time.Now()
	s := r.stage
	sel, err := selectPairs(ctx, Names(r.Images), setSizes(r.Sets), in.desc, in.matcher, s.Pairs, r.env)
	if err != nil {
		return err
	}
	plan := sel.plan()
	r.Time.Select = time.Since(t0)
	var pc *pairCache
	if r.env.Cache.Pairs != "" {
		if pc, err = newPairCache(r.env.Cache.Pairs, r.Scene, in.matcher, in.est, s); err != nil {
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
		ms, err := r.matchBatch(ctx, in, pc, batch)
		if err != nil {
			return err
		}
		if s.Verification.Off {
			break
		}
		if err := r.verifyBatch(ctx, in, pc, ms, round > 0); err != nil {
			return err
		}
		if round >= plan.Rounds(s) {
			break
		}
		if batch, proposed, err = r.completionPairs(sel, plan, tried); err != nil {
			return err
		}
	}
	r.sortPairs(sel, source, pc)
	return nil
}

// matchBatch matches the pairs of batch (those not in the pair cache) and
// appends them to Matches.
func (r *pairRun) matchBatch(ctx context.Context, in *pairInputs, pc *pairCache, batch [][2]int) ([]pairwise.Pair, error) {
	t := time.Now()
	mo := pairwise.Options{Ratio: r.stage.Matching.ratio(), Mutual: r.stage.Matching.Mutual, Workers: r.env.Workers, Pairs: batch}
	mo.Progress = offsetProgress(r.env.Progress, StageMatch, len(r.Matches))
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
	r.Time.Match += time.Since(t)
	return ms, nil
}

// verifyBatch verifies the pairs of ms (those not in the pair cache) and
// appends them to Verified; completion's pairs get its inlier-ratio floor.
func (r *pairRun) verifyBatch(ctx context.Context, in *pairInputs, pc *pairCache, ms []pairwise.Pair, completion bool) error {
	t := time.Now()
	vo := r.stage.verifyOptions(completion)
	run := pairwise.VerifyRun{Workers: r.env.Workers, Progress: offsetProgress(r.env.Progress, StageVerify, len(r.Verified)),
		Descriptors: in.desc} // only guided matching reads them, per pair
	var vs []pairwise.Verified
	todo := ms
	if pc != nil {
		vs, todo = pc.verified(ms, vo)
		run.OnPair = pc.storeVerified(vo)
	}
	if len(todo) > 0 {
		done, err := pairwise.Verify(ctx, in.views, features.DescSize, todo, in.est, vo, run)
		if err != nil {
			return err
		}
		vs = append(vs, done...)
	}
	r.Verified = append(r.Verified, vs...)
	r.Time.Verify += time.Since(t)
	return nil
}

// verifyOptions are verification's options for a round's pairs:
// completion's get its inlier-ratio floor.
func (s PairStage) verifyOptions(completion bool) pairwise.VerifyOptions {
	vo := s.Verification.VerifyOptions
	if completion {
		vo.MinInlierRatio = max(vo.MinInlierRatio, s.Pairs.minInlierRatio())
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
func (r *pairRun) completionPairs(sel *selection, plan *PairPlan, tried map[[2]int]bool) ([][2]int, int, error) {
	proposed, err := plan.Next(len(r.Sets), r.Verified, tried, r.stage.Pairs)
	if err != nil {
		return nil, 0, err
	}
	sel.considered[SourceCompletion] += len(proposed)
	batch := r.chained(proposed, tried, r.stage.Pairs.CompletionChains())
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
func (r *pairRun) chained(batch [][2]int, tried map[[2]int]bool, min int) [][2]int {
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
func (r *pairRun) sortPairs(sel *selection, source map[[2]int]string, pc *pairCache) {
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
