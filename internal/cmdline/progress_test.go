package cmdline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/clearmatch/clearmatch/internal/terminal"
	"github.com/clearmatch/clearmatch/pipeline"
)

// TestJSONProgress: every line is one JSON object with the stage, its
// counts, unit and rate; a stage's last line has done == total, and
// updates closer than 200 ms are dropped except that one.
func TestJSONProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewJSONProgress(&b)
	for k := 1; k <= 100; k++ {
		p.Update(pipeline.StageMatch, k, 100)
	}
	p.Status(pipeline.StageSolve, 5, 10, "component 1 of 2")
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) < 2 || len(lines) > 4 {
		t.Fatalf("%d lines for 101 updates in well under 200 ms: %q", len(lines), lines)
	}
	var evs []progressEvent
	for _, l := range lines {
		var ev progressEvent
		dec := json.NewDecoder(strings.NewReader(l))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&ev); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		evs = append(evs, ev)
	}
	last := evs[len(evs)-2]
	if last.Stage != "match" || last.Done != 100 || last.Total != 100 || last.Unit != "pairs" || last.Rate < 0 {
		t.Errorf("the match stage's last event %+v", last)
	}
	if s := evs[len(evs)-1]; s.Stage != "solve" || s.Detail != "component 1 of 2" || s.Unit != "observations" {
		t.Errorf("status event %+v", s)
	}
}

func TestProgressPrinterChoice(t *testing.T) {
	for _, tc := range []struct {
		format string
		ok     bool
	}{{"text", true}, {"json", true}, {"xml", false}} {
		if _, err := NewProgressPrinter(tc.format, &bytes.Buffer{}); (err == nil) != tc.ok {
			t.Errorf("-progress %s: err %v", tc.format, err)
		}
	}
}

// TestProgressToLog: to a file or a pipe (here a buffer) progress is plain
// lines, no carriage-return frames: a stage's first counter, then one
// every terminal.LogInterval, and its final line.
func TestProgressToLog(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b)
	for k := 1; k <= 100; k++ {
		p.Update(pipeline.StageMatch, k, 100)
	}
	p.Update(pipeline.StageVerify, 1, 10)
	p.Update(pipeline.StageVerify, 10, 10)
	if strings.Contains(b.String(), "\r") {
		t.Errorf("a carriage return in a log: %q", b.String())
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	want := []string{"match    1/100 pairs", "match    100/100 pairs", "verify   10/10 pairs"}
	if len(lines) != len(want) {
		t.Fatalf("%d lines for two stages in well under %v: %q", len(lines), terminal.LogInterval, lines)
	}
	for k, w := range want {
		if !strings.HasPrefix(lines[k], w) {
			t.Errorf("line %d %q, want it to start %q", k, lines[k], w)
		}
	}
}

// TestProgressStageAgain: a stage run a second time after it finished
// reads its rate from its second start, not its first.
func TestProgressStageAgain(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b)
	p.Update(pipeline.StageMatch, 1, 10)
	p.starts[pipeline.StageMatch] = time.Now().Add(-time.Hour) // a long first run
	p.Update(pipeline.StageMatch, 10, 10)
	b.Reset()
	p.last = time.Time{}
	p.Update(pipeline.StageMatch, 1, 10)
	if got := b.String(); got != "match    1/10 pairs\n" {
		t.Errorf("the second run's first line %q, want no rate yet", got)
	}
}
