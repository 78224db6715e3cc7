package paper

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/clearmatch/clearmatch/benchmark"
	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pipeline"
)

const evalUsage = `eval hotel|graffiti [-data DIR] [-out DIR] [-protocol both|verified|paper] [flags]

Reproduces the paper's experiments on CMU Hotel or Graffiti and scores them
against the ground truth. By default two protocols run on the same features:
"verified", clearmatch's default (RootSIFT, ratio 0.8, geometric verification
and guided matching, then CLEAR), and "paper", the paper's own (SIFT, ratio 1.5
on squared distances, CLEAR on every match). Prints a table per protocol and
writes report.json, problem.txt (CLEAR's input of the first protocol) and
overlays/ into DIR.

Hotel: one SIFT descriptor per labelled landmark (σ = 10, computed orientation);
truth = same landmark. Graffiti: SIFT with OpenCV's defaults; truth from the
homographies (features matched within 2 px, greedily one to one; only features
whose truth is a clique with one feature per image are kept).`

// benchOptions are what eval and demo share.
type benchOptions struct {
	out, protocol     string
	force             bool
	minTrack, workers int
}

// RunEval is `clearmatch eval hotel|graffiti`.
func RunEval(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o benchOptions
	fs := cmdline.NewFlags("eval", evalUsage, stdout)
	data := fs.String("data", cmdline.DefaultDataDir(), "datasets folder ($CLEARMATCH_DATA sets the default)")
	fs.StringVar(&o.out, "out", "eval-out", "output directory")
	fs.BoolVar(&o.force, "force", false, "write into a non-empty output directory")
	fs.IntVar(&o.minTrack, "min-track", 2, "score only tracks of at least this many observations (the paper's post-processing)")
	fs.IntVar(&o.workers, "workers", 0, "parallel workers (0: GOMAXPROCS)")
	fs.StringVar(&o.protocol, "protocol", "both", "both, verified (clearmatch's default) or paper (the CLEAR paper's)")
	var dataset string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		dataset, args = args[0], args[1:]
	}
	if err := cmdline.ParseFlags(fs, args); err != nil {
		return err
	}
	if dataset != "hotel" && dataset != "graffiti" {
		return cmdline.Usagef("want a dataset: eval hotel|graffiti")
	}
	stage, err := o.begin()
	if err != nil {
		return err
	}
	defer stage.Discard()
	pr := cmdline.NewProgress(stderr)
	var b *benchmark.Benchmark
	if dataset == "hotel" {
		b, err = benchmark.LoadHotel(ctx, filepath.Join(*data, "cmu-hotel"), pr)
	} else {
		b, err = benchmark.LoadGraffiti(ctx, filepath.Join(*data, "graffiti"), o.workers, pr)
	}
	if err != nil {
		return err
	}
	if err := runBenchmark(ctx, b, &o, stage, pr, stdout); err != nil {
		return err
	}
	printBenchFooter(stdout, o.out, "")
	return nil
}

// begin checks the options and OpenCV, then stages the output folder.
func (o *benchOptions) begin() (*export.Stage, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	if err := cmdline.NeedOpenCV(); err != nil {
		return nil, err
	}
	return cmdline.NewStage(o.out, o.force)
}

func (o *benchOptions) check() error {
	switch {
	case o.minTrack < 1:
		return cmdline.Usagef("-min-track %d: want at least 1", o.minTrack)
	case o.workers < 0:
		return cmdline.Usagef("-workers %d: want 0 (all cores) or more", o.workers)
	case o.protocol != "both" && o.protocol != "verified" && o.protocol != "paper":
		return cmdline.Usagef("-protocol %q: want both, verified or paper", o.protocol)
	}
	return nil
}

// protocolReport is one protocol's part of report.json.
type protocolReport struct {
	Protocol        string                       `json:"protocol"`
	Matches         eval.Row                     `json:"ratio_matches"`
	Verification    *pipeline.VerificationCounts `json:"verification,omitempty"`
	InputComponents int                          `json:"input_components"`
	InputLargest    int                          `json:"input_largest_component"`
	UniverseSize    int                          `json:"universe_size"`
	SplitComponents int                          `json:"split_components"`
	TimingSeconds   map[string]float64           `json:"timing_s"`
	eval.Rows
}

type benchReport struct {
	Dataset      string           `json:"dataset"`
	Images       []imageInfo      `json:"images"`
	Observations int              `json:"observations"`
	Protocols    []protocolReport `json:"protocols"`
}

type imageInfo struct {
	Name         string `json:"name"`
	Features     int    `json:"features"`
	Observations int    `json:"observations"`
}

// runBenchmark evaluates b under the chosen protocols, prints a table per
// protocol and writes report.json, problem.txt and overlays/ (of the first
// protocol) into the stage, then publishes it.
func runBenchmark(ctx context.Context, b *benchmark.Benchmark, o *benchOptions, stage *export.Stage, pr *cmdline.Progress, stdout io.Writer) error {
	protocols := map[string][]string{"both": {"verified", "paper"}, "verified": {"verified"}, "paper": {"paper"}}[o.protocol]
	rep := benchReport{Dataset: b.Name, Observations: len(b.Truth)}
	for i, s := range b.Sets {
		rep.Images = append(rep.Images, imageInfo{Name: s.Image, Features: b.Found[i], Observations: s.Len()})
	}
	var first *benchmark.Evaluation
	for _, name := range protocols {
		opts := pipeline.PaperOptions()
		if name == "verified" {
			opts = pipeline.BenchmarkOptions()
		}
		opts.Workers, opts.Progress = o.workers, pr
		e, err := b.Evaluate(ctx, name, opts, o.minTrack)
		if err != nil {
			return err
		}
		if first == nil {
			first = e
		}
		c, t := e.Result.Clear, e.Result.Timing
		p := protocolReport{Protocol: name, Matches: e.Matches, InputComponents: c.Components, InputLargest: c.LargestComponent,
			UniverseSize: c.UniverseSize, SplitComponents: c.SplitComponents, Rows: e.Rows,
			TimingSeconds: map[string]float64{"match": t.Match.Seconds(), "verify": t.Verify.Seconds(), "clear": t.Solve.Seconds()}}
		if e.Result.Verified != nil {
			v := e.Result.CountVerification()
			p.Verification = &v
		}
		rep.Protocols = append(rep.Protocols, p)
		printEvalTable(stdout, &rep, &p, len(e.Result.Problem.Associations))
	}
	ov := &export.Overlays{Sets: b.Sets, Item: first.Result.Clear.Item, Truth: b.Truth, Input: first.Result.Pairs(), Pairs: b.Pairs, Progress: pr.Stage("overlays")}
	for _, im := range b.Images {
		ov.Paths = append(ov.Paths, im.Path)
	}
	if err := ov.Write(ctx, filepath.Join(stage.Dir, "overlays")); err != nil {
		return err
	}
	var pb, rb bytes.Buffer
	fmt.Fprintf(&pb, "# %s: %d images, CLEAR's input under the %s protocol\n", b.Name, len(b.Sets), first.Protocol)
	if err := clear.WriteText(&pb, first.Result.Problem); err != nil {
		return err
	}
	if err := export.WriteJSON(&rb, rep); err != nil {
		return err
	}
	if err := cmdline.WriteFiles(stage.Dir, map[string][]byte{"problem.txt": pb.Bytes(), "report.json": rb.Bytes()}); err != nil {
		return err
	}
	return stage.Publish()
}

func printEvalTable(w io.Writer, rep *benchReport, p *protocolReport, matches int) {
	fmt.Fprintf(w, "%s, %s protocol: %d images, %d observations; CLEAR input %d matches, %d components (largest %d); universe size %d\n\n",
		rep.Dataset, p.Protocol, len(rep.Images), rep.Observations, matches, p.InputComponents, p.InputLargest, p.UniverseSize)
	fmt.Fprintf(w, "%-16s %9s %7s %7s %9s %9s %10s %8s\n", "", "precision", "recall", "F1", "returned", "correct", "consistent", "distinct")
	rows := []struct {
		name string
		row  eval.Row
	}{{"input", p.Matches}}
	if p.Verification != nil {
		rows = append(rows, struct {
			name string
			row  eval.Row
		}{"verified", p.Input})
	}
	rows = append(rows, []struct {
		name string
		row  eval.Row
	}{{"closure", p.Closure}, {"pruned_closure", p.PrunedClosure}, {"clear", p.Clear}, {"clear_min_track", p.ClearMinTrack}}...)
	for _, r := range rows {
		fmt.Fprintf(w, "%-16s %9.3f %7.3f %7.3f %9d %9d %10v %8v\n", r.name, r.row.Precision, r.row.Recall, r.row.F1, r.row.Returned, r.row.Correct, r.row.CycleConsistent, r.row.Distinct)
	}
	if v := p.Verification; v != nil {
		fmt.Fprintf(w, "verification: %d of %d pairs verified (H %d, F %d, E %d), %d inliers, %d guided matches\n",
			v.Verified, v.Tried, v.Models["H"], v.Models["F"], v.Models["E"], v.Inliers, v.Guided)
	}
	t := p.TimingSeconds
	fmt.Fprintf(w, "timing (s): match %.2f, verify %.2f, clear %.3f\n\n", t["match"], t["verify"], t["clear"])
}
