// Package pool runs indexed work on a bounded set of goroutines, the one
// worker pool of pairwise, retrieval, refine, features and the CLI.
//
// Every goroutine ForEach starts has returned when ForEach returns, also
// after a cancellation or an error: no caller leaves work running.
package pool

import (
	"context"
	"runtime"
	"sync"
)

// ForEach calls fn(k) for k in [0, n) on a pool of workers (0 means
// GOMAXPROCS) fed in index order, calling progress (serialized) after each
// call that succeeded. It stops feeding when ctx is done or a call fails,
// and returns once every started call has: ctx's error if it was
// cancelled, otherwise the error of the lowest failing index (the same
// whatever the number of workers), or nil. Each call should write only its
// own slot, so the output does not depend on the number of workers.
func ForEach(ctx context.Context, n, workers int, progress func(done, total int), fn func(k int) error) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan int)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	done, failed := 0, -1
	var firstErr error
	for w := 0; w < min(workers, max(n, 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				err := fn(k)
				mu.Lock()
				if err != nil && (failed < 0 || k < failed) {
					if failed < 0 {
						close(stop)
					}
					failed, firstErr = k, err
				}
				if err == nil && progress != nil {
					done++
					progress(done, n)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for k := 0; k < n; k++ {
		select {
		case jobs <- k:
		case <-ctx.Done():
			break feed
		case <-stop:
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	return firstErr
}
