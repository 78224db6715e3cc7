package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress prints one stage's progress on stderr: a counter with rate and
// estimated time left, rewritten in place, and a final line when done.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	stage string
	unit  string
	start time.Time
	last  time.Time
}

func newProgress(w io.Writer, stage, unit string) *progress {
	return &progress{w: w, stage: stage, unit: unit, start: time.Now()}
}

func (p *progress) update(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	if done < total && now.Sub(p.last) < 200*time.Millisecond {
		return
	}
	p.last = now
	el := now.Sub(p.start).Seconds()
	rate := float64(done) / max(el, 1e-9)
	eta := ""
	if done < total && rate > 0 {
		eta = fmt.Sprintf(", %.0fs left", float64(total-done)/rate)
	}
	end := "\r"
	if done >= total {
		end = "\n"
	}
	fmt.Fprintf(p.w, "%-8s %d/%d %s (%.1f/s%s)%s", p.stage, done, total, p.unit, rate, eta, end)
}
