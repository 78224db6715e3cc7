package main

import (
	"context"
	"runtime"
)

// cores lets as many bundles work at once in this process as it has
// cores, each on one thread. A runner starts every bundle it can (Prism
// started all 250 extraction batches of 1,000 images), and each would
// otherwise run its images or pairs on every core: many times the
// threads, the OpenCV scratch and the feature sets that match holds.
var cores = make(chan struct{}, runtime.NumCPU())

// acquireCore waits for a core, or for ctx to end; release gives it back.
func acquireCore(ctx context.Context) (release func(), err error) {
	select {
	case cores <- struct{}{}:
		return func() { <-cores }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
