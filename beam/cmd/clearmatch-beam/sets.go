package main

import (
	"context"
	"sync"

	"github.com/clearmatch/clearmatch/features"
	"github.com/clearmatch/clearmatch/pipeline"
)

// readSet reads one image's set from the feature cache (extracting it if
// it is not there), or gives its extraction error.
func readSet(ctx context.Context, im pipeline.Image, opts pipeline.Options) (*features.Set, error) {
	sets, errs, err := opts.Features.RunEach(ctx, opts.Env, []pipeline.Image{im})
	if err != nil {
		return nil, err
	}
	return sets[0], errs[0]
}

// setCache keeps the feature sets this process read last, so that pairs of
// the same images in one worker read each image's features once.
type setCache struct {
	mu   sync.Mutex
	max  int
	sets *lru[string, *features.Set]
}

// processSets is this process's cache: 128 sets of compact descriptors
// (under 256 MiB at 16384 features an image).
var processSets = &setCache{max: 128, sets: newLRU[string, *features.Set](128)}

// get returns the sets of images[idx[k]], reading the missing ones from
// the feature cache (extracting any that are not there).
func (c *setCache) get(ctx context.Context, images []pipeline.Image, idx []int, opts pipeline.Options) ([]*features.Set, error) {
	out := make([]*features.Set, len(idx))
	var missing []pipeline.Image
	var at []int
	c.mu.Lock()
	for k, i := range idx {
		if s, ok := c.sets.get(images[i].Path); ok {
			out[k] = s
			continue
		}
		missing = append(missing, images[i])
		at = append(at, k)
	}
	c.mu.Unlock()
	if len(missing) == 0 {
		return out, nil
	}
	sets, errs, err := opts.Features.RunEach(ctx, opts.Env, missing)
	if err != nil {
		return nil, err
	}
	for k, e := range errs {
		if e != nil {
			return nil, e
		}
		out[at[k]] = sets[k]
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, im := range missing {
		c.sets.put(im.Path, sets[k])
	}
	return out, nil
}

// clear drops every set, for the assembly after the pipeline.
func (c *setCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sets = newLRU[string, *features.Set](c.max)
}
