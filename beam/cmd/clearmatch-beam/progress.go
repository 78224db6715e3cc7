package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/clearmatch/clearmatch/internal/terminal"
)

// progressLine prints the workers' counts on stderr: on a terminal one
// line rewritten at most once a second, to a file or a pipe a plain line
// every terminal.LogInterval. Workers in this process (Prism's default loopback)
// share it; remote workers print theirs into their own logs.
type progressLine struct {
	mu                             sync.Mutex
	w                              io.Writer
	live                           bool
	images, coded, pairs, verified int64
	last                           time.Time
}

var progress = &progressLine{w: os.Stderr, live: terminal.Is(os.Stderr)}

// add counts images extracted, pairs matched and pairs verified.
func (p *progressLine) add(images, pairs, verified int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.images += int64(images)
	p.pairs += int64(pairs)
	p.verified += int64(verified)
	p.print()
}

// code counts images given retrieval's code.
func (p *progressLine) code(images int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.coded += int64(images)
	p.print()
}

func (p *progressLine) print() {
	every := time.Second
	if !p.live {
		every = terminal.LogInterval
	}
	if time.Since(p.last) < every {
		return
	}
	p.last = time.Now()
	coded := ""
	if p.coded > 0 {
		coded = fmt.Sprintf(", %d coded for retrieval", p.coded)
	}
	start, end := "\r", ""
	if !p.live {
		start, end = "", "\n"
	}
	fmt.Fprintf(p.w, "%sbeam     %d images extracted%s, %d pairs matched, %d verified%s", start, p.images, coded, p.pairs, p.verified, end)
}

// done ends the line.
func (p *progressLine) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live && !p.last.IsZero() {
		fmt.Fprintln(p.w)
	}
}
