package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/compare"
	"github.com/clearmatch/clearmatch/export"
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

func runCompare(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var what string
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		what, args = args[0], args[1:]
	}
	fs := newFlags("compare", compareUsage, stdout)
	out := fs.String("out", "compare-out", "output directory")
	force := fs.Bool("force", false, "write into a non-empty output directory")
	methods := fs.String("methods", strings.Join(compare.DefaultMethods, ","), "comma-separated methods, or all: "+strings.Join(multiway.Methods, ", "))
	seed := fs.Uint64("seed", 1, "seed of the synthetic problems and the methods' random choices")
	maxMem := fs.String("max-memory", "4GiB", "skip a method that plans to use more memory (0: no limit)")
	maxGflop := fs.Float64("max-gflop", multiway.DefaultMaxFlop/1e9, "skip a method that plans more work, in 10⁹ floating-point operations (0: no limit)")
	def := compare.DefaultSynthetic()
	runs := fs.Int("runs", def.Runs, "synthetic: Monte Carlo runs per cell")
	items := fs.Int("items", def.Items, "synthetic: universe items")
	grids := fs.String("grids", "1,2", "synthetic: grids to run (1: views × mismatch, 2: ratio × mismatch)")
	viewsFlag := fs.String("views", joinInts(def.Views), "synthetic grid 1: numbers of views")
	ratio := fs.Float64("ratio", def.Ratio, "synthetic grid 1: observation ratio")
	g2views := fs.Int("grid2-views", def.Grid2Views, "synthetic grid 2: number of views")
	ratios := fs.String("ratios", joinFloats(def.Ratios), "synthetic grid 2: observation ratios")
	mismatch := fs.String("mismatch", joinFloats(def.Mismatch), "synthetic: mismatch fractions")
	data := fs.String("data", defaultDataDir(), "datasets folder for hotel and graffiti")
	protocol := fs.String("protocol", "both", "hotel and graffiti: both, paper or verified")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if what != "synthetic" && what != "hotel" && what != "graffiti" {
		return usagef("want what to compare: compare synthetic|hotel|graffiti")
	}
	ms := strings.Split(*methods, ",")
	if *methods == "all" {
		ms = multiway.Methods
	}
	for _, m := range ms {
		if _, err := oneOf("-methods", m, methodSet()); err != nil {
			return err
		}
	}
	limit, err := parseBytes(*maxMem)
	if err != nil {
		return usagef("-max-memory %q: %v", *maxMem, err)
	}
	if limit == 0 {
		limit = -1
	}
	if *maxGflop < 0 {
		return usagef("-max-gflop %v: want 0 (no limit) or more", *maxGflop)
	}
	flop := *maxGflop * 1e9
	if flop == 0 {
		flop = -1
	}
	pr := newProgress(stderr)
	if what == "synthetic" {
		cfg := compare.SyntheticConfig{Methods: ms, Runs: *runs, Items: *items, Ratio: *ratio, Grid2Views: *g2views, Seed: *seed, MaxMemory: limit, MaxFlop: flop}
		var perr error
		parse := func(flag, s string, f func(string) error) {
			for _, x := range strings.Split(s, ",") {
				if err := f(strings.TrimSpace(x)); err != nil && perr == nil {
					perr = usagef("%s: %q is not a number", flag, x)
				}
			}
		}
		parse("-grids", *grids, func(x string) error { v, err := strconv.Atoi(x); cfg.Grids = append(cfg.Grids, v); return err })
		parse("-views", *viewsFlag, func(x string) error { v, err := strconv.Atoi(x); cfg.Views = append(cfg.Views, v); return err })
		parse("-ratios", *ratios, func(x string) error {
			v, err := strconv.ParseFloat(x, 64)
			cfg.Ratios = append(cfg.Ratios, v)
			return err
		})
		parse("-mismatch", *mismatch, func(x string) error {
			v, err := strconv.ParseFloat(x, 64)
			cfg.Mismatch = append(cfg.Mismatch, v)
			return err
		})
		if perr != nil {
			return perr
		}
		if err := cfg.Check(); err != nil {
			return usagef("%v", err)
		}
		stage, err := newStage(*out, *force)
		if err != nil {
			return err
		}
		defer stage.Discard()
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
		addFigures(files, figs)
		if err := writeFiles(stage.Dir, files); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "compare: %d cells × %d methods in %.0fs; wrote %s\n", len(rep.Universe), len(ms), rep.Seconds, *out)
		return stage.Publish()
	}

	if *protocol != "both" && *protocol != "paper" && *protocol != "verified" {
		return usagef("-protocol %q: want both, paper or verified", *protocol)
	}
	if err := needOpenCV(); err != nil {
		return err
	}
	stage, err := newStage(*out, *force)
	if err != nil {
		return err
	}
	defer stage.Discard()
	var b *pipeline.Benchmark
	if what == "hotel" {
		b, err = pipeline.LoadHotel(ctx, filepath.Join(*data, "cmu-hotel"), pr)
	} else {
		b, err = pipeline.LoadGraffiti(ctx, filepath.Join(*data, "graffiti"), 0, pr)
	}
	if err != nil {
		return err
	}
	protocols := map[string][]string{"both": {"paper", "verified"}, "paper": {"paper"}, "verified": {"verified"}}[*protocol]
	files := map[string][]byte{}
	var reps []*compare.RealReport
	for _, name := range protocols {
		opts := pipeline.PaperOptions()
		if name == "verified" {
			opts = pipeline.BenchmarkOptions()
		}
		opts.Progress = pr
		e, err := b.Evaluate(ctx, name, opts, 2)
		if err != nil {
			return err
		}
		rep, err := compare.Real(ctx, what, name, e.Result.Problem, b.Truth, ms, compare.MethodOptions{Seed: *seed, MaxMemory: limit, MaxFlop: flop},
			func(method string, done, total int) { pr.Status("compare", done, total, method) })
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
		addFigures(files, figs)
		files[name+".csv"] = rep.CSV()
		reps = append(reps, rep)
	}
	var rb bytes.Buffer
	if err := export.WriteJSON(&rb, reps); err != nil {
		return err
	}
	files["report.json"] = rb.Bytes()
	if err := writeFiles(stage.Dir, files); err != nil {
		return err
	}
	return stage.Publish()
}

func addFigures(files map[string][]byte, figs []compare.Figure) {
	for _, f := range figs {
		files[f.Name+".png"] = f.PNG
		files[f.Name+".svg"] = f.SVG
	}
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
