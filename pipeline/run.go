package pipeline

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/imagefile"
)

// Run extracts the features of the images and runs Match on their scene,
// camera the images' known intrinsics at full resolution (the zero value:
// unknown). Unreadable images are skipped (listed in Result.Skipped)
// unless opts.Features.Strict; fewer than two usable images is an error.
func Run(ctx context.Context, images []Image, camera geom.Intrinsics, opts Options) (*Result, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	f, err := opts.Features.Run(ctx, opts.Env, images)
	if err != nil {
		return nil, err
	}
	f.Scene.Camera = camera
	r, err := Match(ctx, f.Scene, opts)
	if err != nil {
		return nil, err
	}
	f.Record(r)
	return r, nil
}

// Record puts extraction's stats and time into r, the result of the
// stages after it.
func (f *Extracted) Record(r *Result) {
	r.Skipped, r.CacheHits, r.CacheError, r.Timing.Extract = f.Skipped, int(f.Stats.CacheHits), f.Stats.CacheError, f.Time
	if f.Descriptors != nil {
		r.DescriptorLoads = f.Descriptors.Loads()
	}
}

// Extracted is the extraction stage's output: the scene of the usable
// images (camera unknown) and what became of the others.
type Extracted struct {
	Scene   *Scene
	Skipped []Skipped
	Stats   features.Stats
	// Descriptors bounds the descriptors held in memory (nil without the
	// feature cache).
	Descriptors *features.DescriptorCache
	// Time is extraction's wall time.
	Time time.Duration
}

// Run is the extraction stage: it finds the features of the images
// (through env's feature cache, which it fills) and keeps the usable
// ones, as the function Run does before Match.
func (o FeatureOptions) Run(ctx context.Context, env Env, images []Image) (*Extracted, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	ex := newExtractor(o, env)
	sets, errs, st := ex.ExtractFiles(ctx, Paths(images), Names(images))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kept, keptSets, skipped, err := usable(images, sets, errs, o.Strict)
	if err != nil {
		return nil, err
	}
	scene, err := NewScene(kept, keptSets, ex.Options.MaxDim)
	if err != nil {
		return nil, err
	}
	scene.grays, scene.MaxPixels = ex.Grays, ex.Options.MaxPixels
	return &Extracted{Scene: scene, Skipped: skipped, Stats: st, Descriptors: ex.Descriptors, Time: time.Since(t0)}, nil
}

// newExtractor is the extractor of o in env: its cache, its descriptor
// memory bound and its progress.
func newExtractor(o FeatureOptions, env Env) *features.Extractor {
	ex := &features.Extractor{Options: o.Extraction(), CacheDir: env.Cache.Features, Workers: env.Workers, Compact: true}
	if env.Cache.Features != "" && env.Cache.DescriptorMemory >= 0 {
		budget := env.Cache.DescriptorMemory
		if budget == 0 {
			budget = DefaultDescriptorMemory
		}
		ex.Descriptors = features.NewDescriptorCache(budget)
	}
	if env.Cache.ImageMemory >= 0 {
		ex.Grays = imagefile.NewGrayCache(cmp.Or(env.Cache.ImageMemory, DefaultImageMemory))
	}
	if env.Progress != nil {
		ex.Progress = func(done, total int, _ string) { env.Progress.Update(StageExtract, done, total) }
	}
	return ex
}

// usable keeps the images whose features were extracted and lists the
// others as skipped (an error with strict); fewer than two is an error.
func usable(images []Image, sets []*features.Set, errs []error, strict bool) ([]Image, []*features.Set, []Skipped, error) {
	kept, skipped, err := usableIndex(images, errs, strict)
	if err != nil {
		return nil, nil, nil, err
	}
	keptImages := make([]Image, len(kept))
	keptSets := make([]*features.Set, len(kept))
	for k, i := range kept {
		keptImages[k], keptSets[k] = images[i], sets[i]
	}
	return keptImages, keptSets, skipped, nil
}

// usableIndex is usable's choice from the extraction errors alone: the
// indices of the images kept.
func usableIndex(images []Image, errs []error, strict bool) ([]int, []Skipped, error) {
	var kept []int
	var skipped []Skipped
	for i, err := range errs {
		if errors.Is(err, features.ErrNoOpenCV) {
			return nil, nil, err
		}
		if err != nil {
			if strict {
				return nil, nil, err
			}
			skipped = append(skipped, Skipped{Name: images[i].Name, Err: err})
			continue
		}
		kept = append(kept, i)
	}
	if len(kept) < 2 {
		why := ""
		for _, s := range skipped {
			why += "; " + s.Message()
		}
		return nil, nil, fmt.Errorf("%w: %d of %d%s", ErrTooFewImages, len(kept), len(images), why)
	}
	return kept, skipped, nil
}

// RunEach finds the features of each image through env's feature cache
// (which it fills), one set or error per image, holding every set's
// descriptors in memory: a worker's share of Run.
func (o FeatureOptions) RunEach(ctx context.Context, env Env, images []Image) ([]*features.Set, []error, error) {
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	env.Cache.DescriptorMemory = -1
	sets, errs, _ := newExtractor(o, env).ExtractFiles(ctx, Paths(images), Names(images))
	return sets, errs, ctx.Err()
}
