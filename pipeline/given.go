package pipeline

import (
	"context"
	"fmt"
	"slices"

	"github.com/clearmatch/clearmatch/pairwise"
)

// MatchGiven runs the stages after matching on matches made elsewhere
// (another matcher's, a COLMAP database's): verification (unless
// opts.Verification.Off), CLEAR and the track stages, as Match runs them
// after its own matching. The scene's sets hold each image's keypoints in
// full-resolution pixels; descriptors are read only by the steps that
// compare them (guided matching, completion, the reprojection filter's
// extension), which need them in every set. matches may come in any order
// and hold a pair's keypoint pairs in any order; each index pair must
// name two images, lower first, and keypoints they have.
func MatchGiven(ctx context.Context, scene *Scene, matches []pairwise.Pair, opts Options) (*Result, error) {
	if err := checkGiven(scene, matches, opts); err != nil {
		return nil, err
	}
	s := opts.PairStage()
	r := newPairRun(scene, s, opts.Env)
	r.Matches = slices.Clone(matches)
	slices.SortFunc(r.Matches, func(a, b pairwise.Pair) int {
		if a.I != b.I {
			return a.I - b.I
		}
		return a.J - b.J
	})
	r.PairMode, r.PairsConsidered = PairsGiven, map[string]int{PairsGiven: len(matches)}
	r.PairSources = make([]string, len(r.Matches))
	for k := range r.PairSources {
		r.PairSources[k] = PairsGiven
	}
	if !opts.Verification.Off {
		if err := r.verifyBatch(ctx, newPairInputs(scene, s), nil, r.Matches, false); err != nil {
			return nil, err
		}
	}
	return solveAndTrack(ctx, scene, r.Matched, opts)
}

// checkGiven reports what MatchGiven cannot use: options, matches that do
// not fit the images, and sets without the descriptors a step reads.
func checkGiven(scene *Scene, matches []pairwise.Pair, opts Options) error {
	if err := scene.check(); err != nil {
		return err
	}
	sets := scene.Sets
	if err := opts.PairStage().validate(); err != nil {
		return err
	}
	if err := opts.Tracks.Validate(); err != nil {
		return err
	}
	seen := map[[2]int]bool{}
	for _, p := range matches {
		if p.I < 0 || p.I >= p.J || p.J >= len(sets) || seen[[2]int{p.I, p.J}] {
			return fmt.Errorf("pipeline: pair (%d, %d) is not two of %d images, lower first, once", p.I, p.J, len(sets))
		}
		seen[[2]int{p.I, p.J}] = true
		for _, m := range p.Matches {
			if m.A < 0 || int(m.A) >= sets[p.I].Len() || m.B < 0 || int(m.B) >= sets[p.J].Len() {
				return fmt.Errorf("pipeline: images %d and %d: match (%d, %d) is out of their %d and %d keypoints", p.I, p.J, m.A, m.B, sets[p.I].Len(), sets[p.J].Len())
			}
		}
	}
	t := opts.Tracks
	guided := !opts.Verification.Off && opts.Verification.Guided
	if !guided && t.Complete.Off && (t.Reproj.Off || t.Reproj.NoExtend) {
		return nil
	}
	for i, s := range sets {
		if !descriptorsFit(s) {
			return fmt.Errorf("pipeline: image %d has no descriptors for its %d keypoints, which guided matching, completion and the reprojection filter's extension compare (turn them off)", i, s.Len())
		}
	}
	return nil
}
