package cmdline

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/clearmatch/clearmatch/compare"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/internal/terminal"
	"github.com/clearmatch/clearmatch/pipeline"
)

// progress prints stages' progress on stderr: a counter with rate and
// estimated time left, and a final line when a stage is done. On a
// terminal the counter is one live line, rewritten in place at most five
// times a second; to a file or a pipe it is a plain line every
// terminal.LogInterval, so that a log holds no carriage-return frames. It
// implements pipeline.Progress.
type Progress struct {
	mu     sync.Mutex
	w      io.Writer
	live   bool
	starts stageClock
	shown  map[string]bool
	last   time.Time
}

var _ pipeline.Progress = (*Progress)(nil)

// units names what each stage counts.
var units = map[string]string{
	pipeline.StageExtract: "images", pipeline.StageMatch: "pairs", pipeline.StageVerify: "pairs",
	pipeline.StageSolve: "observations", pipeline.StageComplete: "tracks", pipeline.StageCompletePairs: "image pairs", "overlays": "pictures", "fetch": "files", "render": "images",
}

// quiet stages print nothing when they finish within a second.
var quiet = map[string]bool{pipeline.StageSolve: true, pipeline.StageComplete: true, pipeline.StageCompletePairs: true}

func NewProgress(w io.Writer) *Progress {
	return &Progress{w: w, live: terminal.Is(w), starts: stageClock{}, shown: map[string]bool{}}
}

// stageClock remembers when each stage began.
type stageClock map[string]time.Time

// begun returns when stage began; its first call starts it at now.
func (c stageClock) begun(stage string, now time.Time) time.Time {
	start, ok := c[stage]
	if !ok {
		start = now
		c[stage] = now
	}
	return start
}

// Update implements pipeline.Progress.
func (p *Progress) Update(stage string, done, total int) { p.Status(stage, done, total, "") }

// Status implements pipeline.StatusReporter: with a detail (the solve's
// component under way) the line shows it and the time so far, not a rate
// and an ETA.
func (p *Progress) Status(stage string, done, total int, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	start := p.starts.begun(stage, now)
	every := 200 * time.Millisecond
	if !p.live {
		every = terminal.LogInterval
	}
	if done < total && now.Sub(p.last) < every {
		return
	}
	// A solve is usually milliseconds: it shows progress only once it has
	// run for a second.
	if quiet[stage] && now.Sub(start) < time.Second && !p.shown[stage] {
		return
	}
	p.shown[stage] = true
	p.last = now
	el := now.Sub(start).Seconds()
	rate := ""
	if detail != "" && done < total {
		rate = fmt.Sprintf(": %s (%.0fs)", detail, el)
	} else if done == 0 && el >= 1 {
		rate = fmt.Sprintf(" (%.0fs)", el) // one long step: show it is alive
	} else if el >= 0.1 { // a rate over less is noise
		r := float64(done) / el
		rate = fmt.Sprintf(" (%.1f/s", r)
		if done < total && r > 0 {
			rate += fmt.Sprintf(", %.0fs left", float64(total-done)/r)
		}
		rate += ")"
	}
	end := "\r"
	if done >= total || !p.live {
		end = "\n"
	}
	if done >= total {
		delete(p.starts, stage) // a stage run again (fuse's second tolerance) starts its clock again
	}
	fmt.Fprintf(p.w, "%-8s %d/%d %s%s%s", stage, done, total, units[stage], rate, end)
}

// stage returns p's update function for one stage.
func (p *Progress) Stage(name string) func(done, total int) {
	return func(done, total int) { p.Update(name, done, total) }
}

// NewStage prepares an output folder, as a usage error when it is not
// empty.
func NewStage(out string, force bool) (*export.Stage, error) {
	st, err := export.NewStage(out, force)
	return st, OutUsage(err)
}

// OutUsage makes a non-empty output folder a usage error (-force is the
// remedy); other errors stay as they are.
func OutUsage(err error) error {
	if errors.Is(err, export.ErrNotEmpty) {
		return UsageError{Err: err}
	}
	return err
}

// WriteStream writes a new file of a run's stage through a buffer (the
// stage itself is what makes the output atomic).
func WriteStream(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteFiles writes named files into dir atomically.
func WriteFiles(dir string, files map[string][]byte) error {
	for name, data := range files {
		if err := export.WriteFileAtomic(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}

// ProgressPrinter is how a command shows progress: as text for a person
// (NewProgress) or as JSON lines for a script or a GUI (NewJSONProgress).
type ProgressPrinter interface {
	pipeline.StatusReporter
	Stage(name string) func(done, total int)
}

// NewProgressPrinter returns the printer -progress names.
func NewProgressPrinter(format string, w io.Writer) (ProgressPrinter, error) {
	switch format {
	case "text", "":
		return NewProgress(w), nil
	case "json":
		return NewJSONProgress(w), nil
	}
	return nil, Usagef("-progress %q: want text or json", format)
}

// progressEvent is one line of -progress json (docs/outputs.md).
type progressEvent struct {
	Stage   string  `json:"stage"`
	Done    int     `json:"done"`
	Total   int     `json:"total"`
	Unit    string  `json:"unit,omitempty"`
	Rate    float64 `json:"rate"`
	Elapsed float64 `json:"elapsed_s"`
	Detail  string  `json:"detail,omitempty"`
}

// jsonProgress prints each stage's progress as one JSON object a line:
// at most five a second per stage, and always the one that ends it
// (done == total). It implements pipeline.StatusReporter.
type jsonProgress struct {
	mu     sync.Mutex
	enc    *json.Encoder
	starts stageClock
	last   map[string]time.Time
}

func NewJSONProgress(w io.Writer) *jsonProgress {
	return &jsonProgress{enc: json.NewEncoder(w), starts: stageClock{}, last: map[string]time.Time{}}
}

// Update implements pipeline.Progress.
func (p *jsonProgress) Update(stage string, done, total int) { p.Status(stage, done, total, "") }

// Status implements pipeline.StatusReporter.
func (p *jsonProgress) Status(stage string, done, total int, detail string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	start := p.starts.begun(stage, now)
	if last, ok := p.last[stage]; ok && done < total && now.Sub(last) < 200*time.Millisecond {
		return
	}
	p.last[stage] = now
	el := now.Sub(start).Seconds()
	ev := progressEvent{Stage: stage, Done: done, Total: total, Unit: units[stage], Elapsed: math.Round(el*1000) / 1000, Detail: detail}
	if el > 0 {
		ev.Rate = math.Round(float64(done)/el*100) / 100
	}
	p.enc.Encode(ev) // a failed write of progress is not the run's failure
}

func (p *jsonProgress) Stage(name string) func(done, total int) {
	return func(done, total int) { p.Update(name, done, total) }
}

// AddFigures adds each figure to files as NAME.png and NAME.svg.
func AddFigures(files map[string][]byte, figs []compare.Figure) {
	for _, f := range figs {
		files[f.Name+".png"] = f.PNG
		files[f.Name+".svg"] = f.SVG
	}
}
