package pipeline

import (
	"context"
	"fmt"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pairwise"
)

// Match runs the stages after extraction on the scene: pairs (select,
// match and verify, PairStage), CLEAR (SolveOptions) and the track stages
// (Track), each on the previous one's output, in opts.Env.
func Match(ctx context.Context, scene *Scene, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	m, err := opts.PairStage().Run(ctx, opts.Env, scene)
	if err != nil {
		return nil, err
	}
	return solveAndTrack(ctx, scene, m, opts)
}

// solveAndTrack runs CLEAR on the verified pairs, then the track stages:
// the steps after verification, whoever made the pairs.
func solveAndTrack(ctx context.Context, scene *Scene, m *Matched, opts Options) (*Result, error) {
	sol, err := opts.Solve.Run(ctx, opts.Env, scene, m)
	if err != nil {
		return nil, err
	}
	return Track(ctx, opts.Env, scene, m, sol, opts.Tracks.Stages())
}

// check reports options the pairs stage cannot use, and a scene whose
// feature sets do not fit its images.
func (s PairStage) check(scene *Scene) error {
	if err := scene.check(); err != nil {
		return err
	}
	for i, set := range scene.Sets {
		if !descriptorsFit(set) {
			return fmt.Errorf("pipeline: image %d has %d descriptor values for %d features", i, len(set.Desc)+len(set.Desc8), set.Len())
		}
	}
	return s.validate()
}

// descriptorsFit reports whether s holds one descriptor per keypoint, or
// has released them to the descriptor cache, which holds them.
func descriptorsFit(s *features.Set) bool {
	return s.Released() || len(s.Desc)+len(s.Desc8) == s.Len()*features.DescSize
}

// validate reports options the pairs stage cannot use.
func (s PairStage) validate() error {
	if !s.Verification.Off {
		if err := s.Verification.Validate(); err != nil {
			return err
		}
	}
	return s.Pairs.validate()
}

// pairInputs are what matching and verification read: descriptors as
// matched, the matcher, the views and the estimator.
type pairInputs struct {
	desc    func(i int) ([]float32, error)
	matcher pairwise.Matcher
	views   []pairwise.View // nil without verification
	est     pairwise.Estimator
}

func newPairInputs(scene *Scene, s PairStage) *pairInputs {
	in := &pairInputs{desc: descriptors(scene.Sets, !s.Matching.NoRootSIFT), matcher: s.Matching.matcher(), est: s.Verification.Estimator}
	if in.est == nil {
		in.est = features.CVEstimator{}
	}
	if !s.Verification.Off {
		in.views = make([]pairwise.View, len(scene.Sets))
		for i, set := range scene.Sets {
			in.views[i] = pairwise.View{Points: set.Points(), Intrinsics: scene.Camera, PixelScale: scene.Scale[i]}
		}
	}
	return in
}

// matcher is o's matcher: the BLAS matcher unless one is given (pure Go
// without OpenCV).
func (o MatchOptions) matcher() pairwise.Matcher {
	switch {
	case o.Matcher != nil:
		return o.Matcher
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
