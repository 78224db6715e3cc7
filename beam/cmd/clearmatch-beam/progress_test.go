package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	p := &progressLine{w: &b}
	p.add(3, 0, 0)
	if got := b.String(); got != "\rbeam     3 images extracted, 0 pairs matched, 0 verified" {
		t.Errorf("before retrieval: %q", got)
	}
	p.add(0, 5, 2) // within a second: not printed
	p.last = time.Time{}
	p.code(2)
	if got := b.String(); !strings.HasSuffix(got, "\rbeam     3 images extracted, 2 coded for retrieval, 5 pairs matched, 2 verified") {
		t.Errorf("with retrieval: %q", got)
	}
	p.done()
	if !strings.HasSuffix(b.String(), "verified\n") {
		t.Errorf("done does not end the line: %q", b.String())
	}
}
