package pipeline

import (
	"cmp"
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
	"github.com/clearmatch/clearmatch/retrieval"
)

// Pair selection modes and sources.
const (
	PairsAuto       = "auto"
	PairsExhaustive = "exhaustive"
	PairsSequential = "sequential"
	PairsRetrieval  = "retrieval"
	// PairsGiven is the mode and source of pairs listed in Match.Pairs.
	PairsGiven = "given"
	// SourceCompletion marks pairs proposed by transitive completion.
	SourceCompletion = "completion"
)

// PairOptions choose the image pairs to match.
type PairOptions struct {
	// Mode is exhaustive (every pair), sequential (each image with
	// the next Overlap and, quadratically, the images 2^k ahead),
	// retrieval (each image with its K most similar images by VLAD on a
	// vocabulary trained on the images themselves, then Rounds of
	// transitive completion) or auto: exhaustive up to AutoExhaustiveMax
	// images (2K+1 when that is more), retrieval above, with sequential
	// pairs added when the names are one numbered sequence ("": auto).
	Mode string
	// K is retrieval's neighbours per image (0: DefaultRetrievalK).
	// Completion proposes at most K pairs per image per round.
	K int
	// MinRelative drops a retrieval or completion candidate of an image
	// that is less similar than MinRelative times the image's most similar
	// image (0: DefaultMinRelative). On a folder of three scenes every cross-scene
	// similarity was below 0.1 times the best and every same-scene one
	// above 0.2 (docs/decisions.md); cross-scene pairs are where false verifications
	// come from, and completion would spread them.
	MinRelative float64
	// Overlap is sequential's window (0: DefaultOverlap).
	Overlap int
	// Rounds of transitive completion after retrieval (A–B and B–C
	// verified: try A–C), at most: completion stops when a round proposes
	// no pair. Needs verification (0: DefaultCompletionRounds; negative:
	// none).
	Rounds int
	// CompletionMinInlierRatio is completion's inlier-ratio floor: only
	// pairs whose inliers are at least this fraction of their ratio
	// matches count as A–B evidence, and the pairs completion proposes are
	// verified with it (pairwise.VerifyOptions.MinInlierRatio, raised to
	// it). Transitivity is not appearance: without the floor, a
	// repetitive scene's chance epipolar fits (15-20 inliers of 200)
	// propose more of themselves each round (0:
	// DefaultCompletionMinInlierRatio; negative: no floor beyond
	// verification's).
	CompletionMinInlierRatio float64
	// CompletionMinChains is completion's cheap test before matching: a
	// pair it proposes is matched only when the verified matches chain at
	// least this many of its feature pairs through a third image (fa–fb
	// verified in A–B and fb–fc in B–C). A pair that fails is not matched
	// and counts as tried (0: DefaultCompletionMinChains; negative: every
	// proposed pair is matched).
	CompletionMinChains int
	// Retrieval configures the vocabulary and codes.
	Retrieval RetrievalOptions
	// List, when set, is the pairs to match (image indices), overriding
	// Mode; Window, when positive, limits exhaustive matching to images at
	// most this far apart in order (video).
	List   [][2]int
	Window int
}

// pairList resolves List or Window to the pairs of n images (every pair
// when neither is set).
func (o PairOptions) pairList(n int) ([][2]int, error) {
	return pairwise.Options{Pairs: o.List, Window: o.Window}.PairList(n)
}

// RetrievalOptions configure retrieval's vocabulary and codes (package
// retrieval's options; its workers are the Env's).
type RetrievalOptions struct {
	// Words, Sample, Iterations and Seed are the vocabulary's size, the
	// descriptors it is trained on, k-means' iterations and their seed
	// (0: retrieval's defaults).
	Words, Sample, Iterations int
	Seed                      uint64
	// SampleFile, when set, keeps the training sample in that file
	// instead of memory.
	SampleFile string
}

// DefaultMinRelative is PairOptions.MinRelative's default.
const DefaultMinRelative = 0.15

// DefaultOverlap is sequential's window, PairOptions.Overlap's default.
const DefaultOverlap = 10

func (o PairOptions) k() int               { return cmp.Or(o.K, DefaultRetrievalK) }
func (o PairOptions) minRelative() float64 { return cmp.Or(o.MinRelative, DefaultMinRelative) }
func (o PairOptions) overlap() int         { return cmp.Or(o.Overlap, DefaultOverlap) }
func (o PairOptions) mode() string         { return cmp.Or(o.Mode, PairsAuto) }
func (o PairOptions) minInlierRatio() float64 {
	return orNone(o.CompletionMinInlierRatio, DefaultCompletionMinInlierRatio)
}

// CompletionRounds is the most rounds of completion o asks for.
func (o PairOptions) CompletionRounds() int { return orNone(o.Rounds, DefaultCompletionRounds) }

// CompletionChains is the fewest chains o asks of a pair completion
// proposes before it is matched (0: none).
func (o PairOptions) CompletionChains() int {
	return orNone(o.CompletionMinChains, DefaultCompletionMinChains)
}

func (o PairOptions) validate() error {
	switch o.Mode {
	case "", PairsAuto, PairsExhaustive, PairsSequential, PairsRetrieval:
	default:
		return fmt.Errorf("pipeline: pair selection %q is not auto, exhaustive, sequential or retrieval", o.Mode)
	}
	if !(o.CompletionMinInlierRatio <= 1) {
		return fmt.Errorf("pipeline: completion's inlier-ratio floor %v is not at most 1", o.CompletionMinInlierRatio)
	}
	if !(o.MinRelative >= 0 && o.MinRelative < 1) {
		return fmt.Errorf("pipeline: relative similarity floor %v is not in [0, 1)", o.MinRelative)
	}
	if o.K < 0 || o.Overlap < 0 || o.Window < 0 {
		return fmt.Errorf("pipeline: negative pair selection option (k %d, overlap %d, window %d)", o.K, o.Overlap, o.Window)
	}
	return nil
}

// AutoMode is the mode auto resolves to for n images with the given names.
func (o PairOptions) AutoMode(names []string) string {
	n := len(names)
	if n <= max(AutoExhaustiveMax, 2*o.k()+1) {
		return PairsExhaustive
	}
	if retrieval.Numbered(names) {
		return PairsRetrieval + "+" + PairsSequential
	}
	return PairsRetrieval
}

type selection struct {
	mode       string
	pairs      [][2]int
	source     []string
	considered map[string]int
	index      *retrieval.Index
	best       []float64 // each image's best similarity
}

// plan is the selection as a PairPlan: its first round, and retrieval's
// codes for completion's.
func (s *selection) plan() *PairPlan {
	return &PairPlan{Mode: s.mode, First: s.pairs, Index: s.index, Best: s.best}
}

// selectPairs chooses the first batch of pairs.
// names are the images' names and sizes their feature counts; desc gives
// an image's descriptors as matched.
func selectPairs(ctx context.Context, names []string, sizes []int, desc func(int) ([]float32, error), m pairwise.Matcher, o PairOptions, env Env) (*selection, error) {
	sel, err := startSelection(names, o)
	if err != nil || !sel.ranked() {
		return sel, err
	}
	x, err := retrieval.BuildFunc(ctx, sizes, desc, features.DescSize, m, o.retrievalOptions(env))
	if err != nil {
		return nil, err
	}
	sel.index = x
	nb := x.Neighbors(o.k(), o.minRelative())
	best := make([]float64, len(nb))
	for i, ns := range nb {
		if len(ns) > 0 {
			best[i] = x.Similarity(i, ns[0])
		}
	}
	sel.rank(nb, best, o)
	return sel, nil
}

// ranked reports whether the mode ranks images by retrieval, whose pairs
// rank adds.
func (sel *selection) ranked() bool {
	return sel.mode != PairsExhaustive && sel.mode != PairsSequential && sel.mode != PairsGiven
}

// startSelection chooses the pairs of every mode but retrieval; with
// retrieval it only sets the mode, and rank adds the pairs.
func startSelection(names []string, o PairOptions) (*selection, error) {
	n := len(names)
	sel := &selection{considered: map[string]int{}}
	if o.List != nil {
		ps, err := o.pairList(n)
		if err != nil {
			return nil, err
		}
		sel.mode = PairsGiven
		sel.add(PairsGiven, ps)
		return sel, nil
	}
	mode := o.mode()
	if mode == PairsAuto {
		mode = o.AutoMode(names)
	}
	sel.mode = mode
	switch mode {
	case PairsExhaustive:
		ps, err := o.pairList(n)
		if err != nil {
			return nil, err
		}
		sel.add(PairsExhaustive, ps)
	case PairsSequential:
		sel.add(PairsSequential, retrieval.Sequential(n, o.overlap()))
	}
	return sel, nil
}

// rank adds retrieval's pairs: nb[i] are image i's neighbours
// (retrieval's Neighbors) and best[i] its similarity to the first, which
// completion's floor reads. Then sequential's pairs when the mode has
// them, and the batch is sorted.
func (sel *selection) rank(nb [][]int, best []float64, o PairOptions) {
	sel.add(PairsRetrieval, retrieval.Pairs(nb))
	sel.best = best
	if sel.mode != PairsRetrieval {
		sel.add(PairsSequential, retrieval.Sequential(len(nb), o.overlap()))
	}
	sortSelection(sel)
}

// add appends the pairs of ps not selected yet, from source src.
func (sel *selection) add(src string, ps [][2]int) {
	sel.considered[src] += len(ps)
	seen := make(map[[2]int]bool, len(sel.pairs))
	for _, p := range sel.pairs {
		seen[p] = true
	}
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			sel.pairs = append(sel.pairs, p)
			sel.source = append(sel.source, src)
		}
	}
}

// retrievalOptions are retrieval's options, on env's workers.
func (o PairOptions) retrievalOptions(env Env) retrieval.Options {
	r := o.Retrieval
	return retrieval.Options{Words: r.Words, Sample: r.Sample, Iterations: r.Iterations, Seed: r.Seed, SampleFile: r.SampleFile, Workers: env.Workers}
}

// setSizes are the sets' feature counts.
func setSizes(sets []*features.Set) []int {
	n := make([]int, len(sets))
	for i, s := range sets {
		n[i] = s.Len()
	}
	return n
}

// sortSelection sorts the batch by pair, keeping each pair's source.
func sortSelection(sel *selection) {
	src := map[[2]int]string{}
	for k, p := range sel.pairs {
		src[p] = sel.source[k]
	}
	sel.pairs = retrieval.SortPairs(sel.pairs)
	for k, p := range sel.pairs {
		sel.source[k] = src[p]
	}
}
