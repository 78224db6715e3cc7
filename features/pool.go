//go:build cgo

package features

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/clearmatch/clearmatch/imagefile"
	"github.com/clearmatch/clearmatch/internal/pool"
)

// ExtractFiles extracts the features of each file (names[i] names
// paths[i] in the Sets and messages). It returns a Set or an error for every
// file, in order: the caller decides whether a bad file is skipped or
// fatal. The output does not depend on the number of workers.
func (e *Extractor) ExtractFiles(ctx context.Context, paths, names []string) ([]*Set, []error, Stats) {
	n := len(paths)
	sets := make([]*Set, n)
	errs := make([]error, n)
	workers := e.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(n, 1))
	if workers > 1 {
		SetNumThreads(1) // the Go workers already use the cores
	}
	var st Stats
	// The cache folder is made by the first store (Cache.Store), so a run
	// that fails before its first image leaves nothing behind.
	cs := &cacheState{dir: e.CacheDir, st: &st}
	var mu sync.Mutex
	done := 0
	started := make([]bool, n)
	_ = pool.ForEach(ctx, n, workers, nil, func(i int) error { // per-image errors stay in errs: failed images are skipped
		started[i] = true
		var key string
		sets[i], key, errs[i] = e.one(paths[i], names[i], &st, cs)
		if e.Compact && sets[i] != nil && sets[i].Compact() && key != "" && e.Descriptors != nil {
			e.Descriptors.release(sets[i], e.CacheDir, key)
		}
		if e.Progress != nil {
			mu.Lock()
			done++
			e.Progress(done, n, names[i])
			mu.Unlock()
		}
		return nil
	})
	trimMemory()
	if err := ctx.Err(); err != nil {
		for i, ok := range started {
			if !ok {
				errs[i] = err
			}
		}
	}
	return sets, errs, st
}

// one extracts the features of one file, or reads them from the cache;
// key is the cache key they are stored under ("" when they are not).
func (e *Extractor) one(path, name string, st *Stats, cs *cacheState) (*Set, string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	var key string
	cache := Cache{Dir: e.CacheDir}
	useCache := e.CacheDir != "" && !cs.off.Load()
	if useCache {
		key = CacheKey(data, e.Options.Params())
		if s, ok := cache.Load(key); ok {
			s.Image, s.Orientation = name, imagefile.Orientation(data)
			atomic.AddInt64(&st.CacheHits, 1)
			return s, key, nil
		}
	}
	s, gray, err := extractGray(name, data, e.Options)
	if err != nil {
		return nil, "", err
	}
	e.Grays.Put(path, e.Options.MaxPixels, gray)
	atomic.AddInt64(&st.Extracted, 1)
	if useCache && !cs.off.Load() {
		if err := cache.Store(key, s); err != nil {
			cs.disable(err)
			return s, "", nil
		}
		return s, key, nil
	}
	return s, "", nil
}

// cacheState turns the cache off for the rest of a run after its first
// failure, which Stats reports: a cache is an optimization, never a reason
// to skip an image.
type cacheState struct {
	dir  string
	off  atomic.Bool
	once sync.Once
	st   *Stats
}

func (c *cacheState) disable(err error) {
	c.once.Do(func() {
		c.off.Store(true)
		c.st.CacheError = fmt.Errorf("feature cache %s unusable, continuing without it: %w", c.dir, err)
	})
}
