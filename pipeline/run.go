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
	f, err := Extract(ctx, images, opts)
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

// Extract is the extraction stage: it finds the features of the images
// (through the feature cache, which it fills) and keeps the usable ones,
// as Run does before Match.
func Extract(ctx context.Context, images []Image, opts Options) (*Extracted, error) {
	if err := opts.Features.Validate(); err != nil {
		return nil, err
	}
	t0 := time.Now()
	ex := newExtractor(opts)
	sets, errs, st := ex.ExtractFiles(ctx, Paths(images), Names(images))
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kept, keptSets, skipped, err := usable(images, sets, errs, opts.Features.Strict)
	if err != nil {
		return nil, err
	}
	scene, err := NewScene(kept, keptSets, opts.Features.MaxDim)
	if err != nil {
		return nil, err
	}
	scene.grays = ex.Grays
	return &Extracted{Scene: scene, Skipped: skipped, Stats: st, Descriptors: ex.Descriptors, Time: time.Since(t0)}, nil
}

// newExtractor is the extractor of opts: its cache, its descriptor memory
// bound and its progress.
func newExtractor(opts Options) *features.Extractor {
	ex := &features.Extractor{Options: opts.Features.Options, CacheDir: opts.Cache.Features, Workers: opts.Workers, Compact: true}
	if opts.Cache.Features != "" && opts.Cache.DescriptorMemory >= 0 {
		budget := opts.Cache.DescriptorMemory
		if budget == 0 {
			budget = DefaultDescriptorMemory
		}
		ex.Descriptors = features.NewDescriptorCache(budget)
	}
	if opts.Cache.ImageMemory >= 0 {
		ex.Grays = imagefile.NewGrayCache(cmp.Or(opts.Cache.ImageMemory, DefaultImageMemory))
	}
	if opts.Progress != nil {
		ex.Progress = func(done, total int, _ string) { opts.Progress.Update(StageExtract, done, total) }
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

// ExtractEach finds the features of each image through the feature cache
// (which it fills), one set or error per image, holding every set's
// descriptors in memory: a worker's share of Extract.
func ExtractEach(ctx context.Context, images []Image, opts Options) ([]*features.Set, []error, error) {
	if err := opts.Features.Validate(); err != nil {
		return nil, nil, err
	}
	opts.Cache.DescriptorMemory = -1
	sets, errs, _ := newExtractor(opts).ExtractFiles(ctx, Paths(images), Names(images))
	return sets, errs, ctx.Err()
}
