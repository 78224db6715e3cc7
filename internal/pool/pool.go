// Package pool runs indexed work on a bounded set of goroutines, the one
// worker pool of pairwise, retrieval and the CLI.
package pool

import (
	"context"
	"runtime"
	"sync"
)

// ForEach calls fn(k) for k in [0, n) on a pool of workers (0 means
// GOMAXPROCS) fed in order, calling progress (serialized) after each; it
// stops feeding when ctx is done and returns once every started call has.
// Each call writes only its own slot, so the output does not depend on the
// number of workers.
func ForEach(ctx context.Context, n, workers int, progress func(done, total int), fn func(k int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	for w := 0; w < min(workers, max(n, 1)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range jobs {
				fn(k)
				if progress != nil {
					mu.Lock()
					done++
					progress(done, n)
					mu.Unlock()
				}
			}
		}()
	}
feed:
	for k := 0; k < n; k++ {
		select {
		case jobs <- k:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
}
