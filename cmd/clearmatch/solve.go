package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/pipeline"
)

const solveUsage = `solve [-in FILE] [-out FILE] [flags]

Runs CLEAR on pairwise associations. Input (file or stdin) in the text format:
the first non-comment line holds the number of observations in each view;
every following line is one association "a b" or "a b w": 0-based global
observation indices (numbered view by view) and an optional weight in (0, 1].
Blank lines and lines starting with '#' are ignored. With -informat mtx, a
Matrix Market coordinate file with the view sizes in -views.

Output (file or stdout): one line per observation, in input order, holding its
universe item (0-based, numbered by first appearance); with -outformat pairs,
the consistent pairwise matches in the input's own format instead. A one-line
summary goes to stderr. Malformed input gets an error with its line number and
nothing is written.`

type solveOptions struct {
	in, out, informat, outformat, views, assignment, eigen string
	threshold                                              float64
	universe, maxComponent                                 int
}

func runSolve(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o solveOptions
	fs := newFlags("solve", solveUsage, stderr)
	fs.StringVar(&o.in, "in", "-", "input file, - for stdin")
	fs.StringVar(&o.out, "out", "-", "output file, - for stdout")
	fs.StringVar(&o.informat, "informat", "text", "input format: text or mtx (Matrix Market)")
	fs.StringVar(&o.views, "views", "", "view sizes for -informat mtx, comma-separated (e.g. 6,8,10)")
	fs.StringVar(&o.outformat, "outformat", "items", "output: items (one universe item per observation) or pairs")
	fs.Float64Var(&o.threshold, "threshold", clear.DefaultThreshold, "eigenvalue threshold of the universe size estimate")
	fs.IntVar(&o.universe, "universe", 0, "known universe size; 0 estimates it")
	fs.StringVar(&o.assignment, "assignment", "greedy", "assignment: greedy (the reference code's) or hungarian (optimal)")
	fs.StringVar(&o.eigen, "eigen", "auto", "eigensolver: auto, dense or iterative")
	fs.IntVar(&o.maxComponent, "max-component", 0, "split components larger than this before decomposing them (0: never, the paper's exact algorithm)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	opts, err := o.clearOptions()
	if err != nil {
		return err
	}
	var views []int
	switch o.informat {
	case "text":
		if o.views != "" {
			return usagef("-views goes with -informat mtx")
		}
	case "mtx":
		if views, err = parseViews(o.views); err != nil {
			return err
		}
	default:
		return usagef("-informat %q: want text or mtx", o.informat)
	}
	if o.outformat != "items" && o.outformat != "pairs" {
		return usagef("-outformat %q: want items or pairs", o.outformat)
	}

	name := o.in
	var r io.Reader = stdin
	if o.in != "-" {
		f, err := os.Open(o.in)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	} else {
		name = "stdin"
	}
	var p *clear.Problem
	var lines []int
	if o.informat == "mtx" {
		p, lines, err = clear.ReadMatrixMarket(r, views)
	} else {
		p, lines, err = clear.ReadText(r)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	pr := newProgress(stderr)
	opts.Status = func(st clear.SolveStatus) { pr.Status(pipeline.StageSolve, st.Done, st.Total, st.String()) }
	res, err := clear.SolveContext(ctx, p, opts)
	if err != nil {
		var ie *clear.InputError
		if errors.As(err, &ie) && ie.Index >= 0 && ie.Index < len(lines) {
			return fmt.Errorf("%s: line %d: %v", name, lines[ie.Index], ie.Err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}

	var buf bytes.Buffer
	l := p.NumObservations()
	switch {
	case o.outformat == "items":
		for _, it := range res.Item {
			buf.WriteString(strconv.Itoa(it))
			buf.WriteByte('\n')
		}
	case o.informat == "mtx":
		err = clear.WritePairsMatrixMarket(&buf, l, res.Pairs())
	default:
		err = clear.WritePairsText(&buf, p.ViewSizes, res.Pairs())
	}
	if err != nil {
		return err
	}
	if o.out == "-" {
		if _, err := stdout.Write(buf.Bytes()); err != nil {
			return err
		}
	} else if err := export.WriteFileAtomic(o.out, buf.Bytes()); err != nil {
		return err
	}
	split := ""
	if res.SplitComponents > 0 {
		split = fmt.Sprintf(" after splitting %d over %d (%d associations cut)", res.SplitComponents, o.maxComponent, res.CutAssociations)
	}
	fmt.Fprintf(stderr, "solve: %d observations, %d views, %d associations (%d inside a view, dropped), %d components (largest %d%s), universe %d (%d eigenvalues below %g), %d items, %v\n",
		l, len(p.ViewSizes), len(p.Associations), res.Dropped, res.Components, res.LargestComponent, split,
		res.UniverseSize, res.BelowThreshold, o.threshold, res.Items, res.Timing.Total().Round(10_000))
	return nil
}

func (o *solveOptions) clearOptions() (*clear.Options, error) {
	opts := &clear.Options{Threshold: o.threshold, UniverseSize: o.universe, MaxComponent: o.maxComponent}
	if o.maxComponent < 0 {
		return nil, usagef("-max-component %d: want 0 (never split) or a positive size", o.maxComponent)
	}
	if !(o.threshold > 0) || o.threshold > 2 {
		return nil, usagef("-threshold %v: want a number in (0, 2]", o.threshold)
	}
	if o.universe < 0 {
		return nil, usagef("-universe %d: want 0 (estimate) or a positive size", o.universe)
	}
	var err error
	if opts.Assignment, err = oneOf("-assignment", o.assignment, map[string]clear.Assignment{
		"greedy": clear.Greedy, "hungarian": clear.Hungarian}); err != nil {
		return nil, err
	}
	if opts.Eigensolver, err = oneOf("-eigen", o.eigen, map[string]clear.Eigensolver{
		"auto": clear.EigenAuto, "dense": clear.EigenDense, "iterative": clear.EigenIterative}); err != nil {
		return nil, err
	}
	return opts, nil
}

// oneOf maps a flag's value through its table of choices.
func oneOf[T any](flagName, value string, choices map[string]T) (T, error) {
	if v, ok := choices[value]; ok {
		return v, nil
	}
	names := make([]string, 0, len(choices))
	for k := range choices {
		names = append(names, k)
	}
	sort.Strings(names)
	var zero T
	return zero, usagef("%s %q: want one of %s", flagName, value, strings.Join(names, ", "))
}

func parseViews(s string) ([]int, error) {
	if s == "" {
		return nil, usagef("-informat mtx needs -views (e.g. -views 6,8,10)")
	}
	var views []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, usagef("-views: %q is not a non-negative integer", f)
		}
		views = append(views, n)
	}
	return views, nil
}
