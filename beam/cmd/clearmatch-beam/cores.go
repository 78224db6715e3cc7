package main

import (
	"context"
	"runtime"

	"github.com/clearmatch/clearmatch/pipeline"
)

// cores lets as many bundles work at once in this process as it has
// cores, each on one thread. A runner starts every bundle it can (at 20
// images Prism ran all 5 extraction batches at once), and each would
// otherwise run its images or pairs on every core: many times the
// threads, the OpenCV scratch and the feature sets that match holds.
var cores = make(chan struct{}, runtime.NumCPU())

// oneCore waits for a core of this process, or for ctx to end, and
// returns opts to run on it (one worker); release gives the core back.
func oneCore(ctx context.Context, opts pipeline.Options) (_ pipeline.Options, release func(), err error) {
	release, err = holdCore(ctx)
	opts.Workers = 1
	return opts, release, err
}

// holdCore waits for a core of this process, or for ctx to end; release
// gives it back.
func holdCore(ctx context.Context) (release func(), err error) {
	select {
	case cores <- struct{}{}:
		return func() { <-cores }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
