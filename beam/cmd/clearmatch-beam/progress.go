package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// progressLine prints the workers' counts on stderr at most once a second.
// Workers in this process (Prism's default loopback) share one line;
// remote workers print theirs into their own logs.
type progressLine struct {
	mu                      sync.Mutex
	w                       io.Writer
	images, pairs, verified int64
	last                    time.Time
}

var progress = &progressLine{w: os.Stderr}

func (p *progressLine) add(images, pairs, verified int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.images += int64(images)
	p.pairs += int64(pairs)
	p.verified += int64(verified)
	if time.Since(p.last) >= time.Second {
		p.last = time.Now()
		fmt.Fprintf(p.w, "\rbeam     %d images extracted, %d pairs matched, %d verified", p.images, p.pairs, p.verified)
	}
}

// done ends the line.
func (p *progressLine) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.last.IsZero() {
		fmt.Fprintln(p.w)
	}
}
