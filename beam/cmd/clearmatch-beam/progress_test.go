package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestProgressLine: on a terminal one line rewritten in place and ended
// by done; to a log plain lines, no carriage return, and done adds none.
func TestProgressLine(t *testing.T) {
	for _, tc := range []struct {
		name        string
		live        bool
		first, next string
		done        string
	}{
		{"terminal", true, "\rbeam     3 images extracted, 0 pairs matched, 0 verified",
			"\rbeam     3 images extracted, 2 coded for retrieval, 5 pairs matched, 2 verified", "verified\n"},
		{"log", false, "beam     3 images extracted, 0 pairs matched, 0 verified\n",
			"beam     3 images extracted, 2 coded for retrieval, 5 pairs matched, 2 verified\n", "2 verified\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			p := &progressLine{w: &b, live: tc.live}
			p.add(3, 0, 0)
			if got := b.String(); got != tc.first {
				t.Errorf("before retrieval: %q", got)
			}
			p.add(0, 5, 2) // within a second: not printed
			p.last = time.Time{}
			p.code(2)
			if got := b.String(); got != tc.first+tc.next {
				t.Errorf("with retrieval: %q", got)
			}
			p.done()
			if !strings.HasSuffix(b.String(), tc.done) || !tc.live && strings.Contains(b.String(), "\r") {
				t.Errorf("after done: %q", b.String())
			}
			if !tc.live && strings.HasSuffix(b.String(), "\n\n") {
				t.Errorf("done added an empty line to a log: %q", b.String())
			}
		})
	}
}
