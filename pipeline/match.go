package pipeline

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Match runs the stages after extraction on the scene: pairs (select,
// match and verify, MatchPairs), CLEAR (Solve) and the track stages
// (Track), each on the previous one's output.
func Match(ctx context.Context, scene *Scene, opts Options) (*Result, error) {
	m, err := MatchPairs(ctx, scene, opts)
	if err != nil {
		return nil, err
	}
	return solveAndTrack(ctx, scene, m, opts)
}

// solveAndTrack runs CLEAR on the verified pairs, then the track stages:
// the steps after verification, whoever made the pairs.
func solveAndTrack(ctx context.Context, scene *Scene, m *Matched, opts Options) (*Result, error) {
	sol, err := Solve(ctx, scene, m, opts.Solve, opts.Progress)
	if err != nil {
		return nil, err
	}
	return Track(ctx, scene, m, sol, opts.Tracks.Stages(), opts)
}

// check reports options the pairs stage cannot use, and a scene whose
// feature sets do not fit its images.
func (o Options) check(scene *Scene) error {
	if err := scene.check(); err != nil {
		return err
	}
	for i, s := range scene.Sets {
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

// pairInputs are what matching and verification read: descriptors as
// matched, the matcher, the views and the estimator.
type pairInputs struct {
	desc    func(i int) ([]float32, error)
	matcher pairwise.Matcher
	views   []pairwise.View // nil without verification
	est     pairwise.Estimator
}

func newPairInputs(scene *Scene, opts Options) *pairInputs {
	in := &pairInputs{desc: descriptors(scene.Sets, opts.Matching.RootSIFT), matcher: matcherOf(opts), est: opts.Verification.Estimator}
	if in.est == nil {
		in.est = features.CVEstimator{}
	}
	if !opts.Verification.Off {
		in.views = make([]pairwise.View, len(scene.Sets))
		for i, s := range scene.Sets {
			in.views[i] = pairwise.View{Points: s.Points(), Intrinsics: scene.Camera, PixelScale: scene.Scale[i]}
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
