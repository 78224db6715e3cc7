package pool

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

func TestForEach(t *testing.T) {
	for _, tc := range []struct {
		name    string
		n       int
		failAt  []int
		wantErr string
	}{
		{"all succeed", 50, nil, ""},
		{"none", 0, nil, ""},
		{"one fails", 50, []int{17}, "k=17"},
		{"lowest failing index wins", 50, []int{40, 9, 23}, "k=9"},
		{"first fails", 50, []int{0, 1}, "k=0"},
	} {
		for _, workers := range []int{1, 2, 7} {
			t.Run(fmt.Sprintf("%s/%d workers", tc.name, workers), func(t *testing.T) {
				fail := map[int]bool{}
				for _, k := range tc.failAt {
					fail[k] = true
				}
				out := make([]int, tc.n)
				err := ForEach(context.Background(), tc.n, workers, nil, func(k int) error {
					if fail[k] {
						return fmt.Errorf("k=%d", k)
					}
					out[k] = k * k
					return nil
				})
				if got := fmt.Sprint(err); tc.wantErr == "" && err != nil || tc.wantErr != "" && got != tc.wantErr {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				if tc.wantErr == "" {
					for k, v := range out {
						if v != k*k {
							t.Fatalf("out[%d] = %d", k, v)
						}
					}
				}
			})
		}
	}
}

func TestForEachProgress(t *testing.T) {
	var last, calls int
	err := ForEach(context.Background(), 30, 3, func(done, total int) {
		if total != 30 || done != last+1 {
			t.Errorf("progress(%d, %d) after %d", done, total, last)
		}
		last = done
		calls++
	}, func(int) error { return nil })
	if err != nil || calls != 30 || last != 30 {
		t.Fatalf("err %v, %d calls, last %d", err, calls, last)
	}
}

// TestForEachCancelLeavesNoGoroutine cancels a long run part-way: ForEach
// returns the context's error, stops feeding work, and leaves no worker
// behind.
func TestForEachCancelLeavesNoGoroutine(t *testing.T) {
	before := runtime.NumGoroutine()
	ctx, cancel := context.WithCancel(context.Background())
	var ran atomic.Int64
	err := ForEach(ctx, 1000, 4, nil, func(k int) error {
		if ran.Add(1) == 10 {
			cancel()
		}
		time.Sleep(time.Millisecond)
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if n := ran.Load(); n >= 1000 {
		t.Fatalf("ran all %d calls after the cancel", n)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Fatalf("%d goroutines before, %d after", before, after)
	}
}
