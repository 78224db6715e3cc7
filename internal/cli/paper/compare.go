package paper

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/benchmark"
	"github.com/clearmatch/clearmatch/compare"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/multiway"
	"github.com/clearmatch/clearmatch/pipeline"
)

const compareUsage = `compare synthetic|hotel|graffiti [-out DIR] [flags]

The CLEAR paper's comparison of multi-view matching methods: CLEAR beside
Spectral, MatchEIG, MatchALS, NMFSync, QuickMatch and MatchLift, every one
given CLEAR's universe estimate as in the paper's harness.

compare synthetic runs the paper's Monte Carlo grids (grid 1: views ×
mismatch at ratio 0.5; grid 2: observation ratio × mismatch at 10 views;
100 items; 10 runs per cell) and reports per cell and method the mean F1,
its F1 after closing the output into cliques, and whether every run was
cycle consistent and distinct, plus CLEAR's universe estimate beside the
eigengap heuristic. MatchLift (O(l³) per iteration, minutes per run) runs
only when named in -methods (or -methods all).

compare hotel|graffiti runs every method (MatchLift only when named) on the
dataset's CLEAR input under the paper's protocol and the verified one.

Writes report.json, CSV tables and the paper's figures as PNG and SVG into
DIR; progress goes to stderr; Ctrl-C stops and writes nothing.`

// compareOptions are compare's flags.
type compareOptions struct {
	what, out, methods, maxMem, grids, views, ratios, mismatch, data, protocol string
	force                                                                      bool
	seed                                                                       uint64
	maxGflop, ratio                                                            float64
	runs, items, g2views                                                       int
	// Resolved by check: the methods, and the limits (-1: none).
	ms    []string
	limit int64
	flop  float64
}

func (o *compareOptions) addFlags(fs *cmdline.FlagSet) {
	fs.StringVar(&o.out, "out", "compare-out", "output directory")
	fs.BoolVar(&o.force, "force", false, "write into a non-empty output directory")
	fs.StringVar(&o.methods, "methods", strings.Join(compare.DefaultMethods, ","), "comma-separated methods, or all: "+strings.Join(multiway.Methods, ", "))
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the synthetic problems and the methods' random choices")
	fs.StringVar(&o.maxMem, "max-memory", "4GiB", "skip a method that plans to use more memory (0: no limit)")
	fs.Float64Var(&o.maxGflop, "max-gflop", multiway.DefaultMaxFlop/1e9, "skip a method that plans more work, in 10⁹ floating-point operations (0: no limit)")
	def := compare.DefaultSynthetic()
	fs.IntVar(&o.runs, "runs", def.Runs, "synthetic: Monte Carlo runs per cell")
	fs.IntVar(&o.items, "items", def.Items, "synthetic: universe items")
	fs.StringVar(&o.grids, "grids", "1,2", "synthetic: grids to run (1: views × mismatch, 2: ratio × mismatch)")
	fs.StringVar(&o.views, "views", joinInts(def.Views), "synthetic grid 1: numbers of views")
	fs.Float64Var(&o.ratio, "ratio", def.Ratio, "synthetic grid 1: observation ratio")
	fs.IntVar(&o.g2views, "grid2-views", def.Grid2Views, "synthetic grid 2: number of views")
	fs.StringVar(&o.ratios, "ratios", joinFloats(def.Ratios), "synthetic grid 2: observation ratios")
	fs.StringVar(&o.mismatch, "mismatch", joinFloats(def.Mismatch), "synthetic: mismatch fractions")
	fs.StringVar(&o.data, "data", cmdline.DefaultDataDir(), "datasets folder for hotel and graffiti")
	fs.StringVar(&o.protocol, "protocol", "both", "hotel and graffiti: both, paper or verified")
}

// check refuses impossible values and resolves the methods and limits.
func (o *compareOptions) check() error {
	if o.what != "synthetic" && o.what != "hotel" && o.what != "graffiti" {
		return cmdline.Usagef("want what to compare: compare synthetic|hotel|graffiti")
	}
	o.ms = strings.Split(o.methods, ",")
	if o.methods == "all" {
		o.ms = multiway.Methods
	}
	for _, m := range o.ms {
		if _, err := cmdline.OneOf("-methods", m, cmdline.SetOf(multiway.Methods)); err != nil {
			return err
		}
	}
	limit, err := cmdline.ParseBytes(o.maxMem)
	if err != nil {
		return cmdline.Usagef("-max-memory %q: %v", o.maxMem, err)
	}
	if o.limit = limit; limit == 0 {
		o.limit = -1
	}
	if o.maxGflop < 0 {
		return cmdline.Usagef("-max-gflop %v: want 0 (no limit) or more", o.maxGflop)
	}
	if o.flop = o.maxGflop * 1e9; o.flop == 0 {
		o.flop = -1
	}
	if o.what != "synthetic" && o.protocol != "both" && o.protocol != "paper" && o.protocol != "verified" {
		return cmdline.Usagef("-protocol %q: want both, paper or verified", o.protocol)
	}
	return nil
}

// RunCompare is `clearmatch compare synthetic|hotel|graffiti`.
func RunCompare(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o compareOptions
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		o.what, args = args[0], args[1:]
	}
	fs := cmdline.NewFlags("compare", compareUsage, stdout)
	o.addFlags(fs)
	if err := cmdline.ParseFlags(fs, args); err != nil {
		return err
	}
	if err := o.check(); err != nil {
		return err
	}
	if o.what == "synthetic" {
		return compareSynthetic(ctx, &o, stdout, stderr)
	}
	return compareReal(ctx, &o, stdout, stderr)
}

// syntheticConfig is the synthetic study the flags describe.
func (o *compareOptions) syntheticConfig() (compare.SyntheticConfig, error) {
	cfg := compare.SyntheticConfig{Methods: o.ms, Runs: o.runs, Items: o.items, Ratio: o.ratio, Grid2Views: o.g2views, Seed: o.seed, MaxMemory: o.limit, MaxFlop: o.flop}
	var perr error
	parse := func(flag, s string, f func(string) error) {
		for _, x := range strings.Split(s, ",") {
			if err := f(strings.TrimSpace(x)); err != nil && perr == nil {
				perr = cmdline.Usagef("%s: %q is not a number", flag, x)
			}
		}
	}
	parse("-grids", o.grids, func(x string) error { v, err := strconv.Atoi(x); cfg.Grids = append(cfg.Grids, v); return err })
	parse("-views", o.views, func(x string) error { v, err := strconv.Atoi(x); cfg.Views = append(cfg.Views, v); return err })
	parse("-ratios", o.ratios, func(x string) error {
		v, err := strconv.ParseFloat(x, 64)
		cfg.Ratios = append(cfg.Ratios, v)
		return err
	})
	parse("-mismatch", o.mismatch, func(x string) error {
		v, err := strconv.ParseFloat(x, 64)
		cfg.Mismatch = append(cfg.Mismatch, v)
		return err
	})
	if perr != nil {
		return cfg, perr
	}
	if err := cfg.Check(); err != nil {
		return cfg, cmdline.Usagef("%v", err)
	}
	return cfg, nil
}

// compareSynthetic runs the paper's synthetic study and writes its
// report, tables and figures.
func compareSynthetic(ctx context.Context, o *compareOptions, stdout, stderr io.Writer) error {
	cfg, err := o.syntheticConfig()
	if err != nil {
		return err
	}
	stage, err := cmdline.NewStage(o.out, o.force)
	if err != nil {
		return err
	}
	defer stage.Discard()
	pr := cmdline.NewProgress(stderr)
	rep, err := compare.Synthetic(ctx, cfg, func(done, total int, what string) { pr.Status("compare", done, total, what) })
	if err != nil {
		return err
	}
	rep.PrintGrids(stdout)
	cells, uni := rep.CSV()
	figs, err := rep.Figures()
	if err != nil {
		return err
	}
	var rb bytes.Buffer
	if err := export.WriteJSON(&rb, rep); err != nil {
		return err
	}
	files := map[string][]byte{"report.json": rb.Bytes(), "cells.csv": cells, "universe.csv": uni}
	cmdline.AddFigures(files, figs)
	if err := cmdline.WriteFiles(stage.Dir, files); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "compare: %d cells × %d methods in %.0fs; wrote %s\n", len(rep.Universe), len(o.ms), rep.Seconds, o.out)
	return stage.Publish()
}

// compareReal runs the methods on Hotel's or Graffiti's CLEAR input under
// each protocol and writes the tables and figures.
func compareReal(ctx context.Context, o *compareOptions, stdout, stderr io.Writer) error {
	if err := cmdline.NeedOpenCV(); err != nil {
		return err
	}
	stage, err := cmdline.NewStage(o.out, o.force)
	if err != nil {
		return err
	}
	defer stage.Discard()
	pr := cmdline.NewProgress(stderr)
	var b *benchmark.Benchmark
	if o.what == "hotel" {
		b, err = benchmark.LoadHotel(ctx, filepath.Join(o.data, "cmu-hotel"), pr)
	} else {
		b, err = benchmark.LoadGraffiti(ctx, filepath.Join(o.data, "graffiti"), 0, pr)
	}
	if err != nil {
		return err
	}
	files := map[string][]byte{}
	var reps []*compare.RealReport
	for _, name := range map[string][]string{"both": {"paper", "verified"}, "paper": {"paper"}, "verified": {"verified"}}[o.protocol] {
		rep, err := compareProtocol(ctx, o, b, name, pr)
		if err != nil {
			return err
		}
		rep.Print(stdout)
		figs, err := rep.Figures()
		if err != nil {
			return err
		}
		for k := range figs {
			figs[k].Name = fmt.Sprintf("%s-%s", name, figs[k].Name)
		}
		cmdline.AddFigures(files, figs)
		files[name+".csv"] = rep.CSV()
		reps = append(reps, rep)
	}
	var rb bytes.Buffer
	if err := export.WriteJSON(&rb, reps); err != nil {
		return err
	}
	files["report.json"] = rb.Bytes()
	if err := cmdline.WriteFiles(stage.Dir, files); err != nil {
		return err
	}
	return stage.Publish()
}

// compareProtocol builds the dataset's CLEAR input under one protocol and
// runs the methods on it.
func compareProtocol(ctx context.Context, o *compareOptions, b *benchmark.Benchmark, name string, pr *cmdline.Progress) (*compare.RealReport, error) {
	opts := pipeline.PaperOptions()
	if name == "verified" {
		opts = pipeline.BenchmarkOptions()
	}
	opts.Progress = pr
	e, err := b.Evaluate(ctx, name, opts, 2)
	if err != nil {
		return nil, err
	}
	return compare.Real(ctx, o.what, name, e.Result.Problem, b.Truth, o.ms, compare.MethodOptions{Seed: o.seed, MaxMemory: o.limit, MaxFlop: o.flop},
		func(method string, done, total int) { pr.Status("compare", done, total, method) })
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func joinFloats(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}
