package solve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/multiway"
	"github.com/clearmatch/clearmatch/pipeline"
)

const solveUsage = `solve [-in FILE] [-out FILE] [flags]

Runs CLEAR, or with -method one of the paper's compared multi-view matching
methods, on pairwise associations. Input (file or stdin) in the text format:
the first non-comment line holds the number of observations in each view;
every following line is one association "a b" or "a b w": 0-based global
observation indices (numbered view by view) and an optional weight in (0, 1].
Blank lines and lines starting with '#' are ignored. With -informat mtx, a
Matrix Market coordinate file with the view sizes in -views.

Output (file or stdout): one line per observation, in input order, holding its
universe item (0-based, numbered by first appearance); with -outformat pairs,
the pairwise matches in the input's own format instead. MatchEIG and MatchALS
give associations, not a partition: they need -outformat pairs, and their
pairs need not be consistent. The universe size (-universe) defaults to
CLEAR's estimate, shared by every method as in the paper. A one-line
summary goes to stderr. Malformed input gets an error with its line number and
nothing is written.`

type solveOptions struct {
	cmdline.ClearFlags
	in, out, informat, outformat, views, method string
	seed                                        uint64
	maxMemory                                   string
	maxGflop                                    float64
}

// Run is `clearmatch solve args...`: CLEAR, or a compared method, on pairwise
// associations read from a file or stdin.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var o solveOptions
	fs := cmdline.NewFlags("solve", solveUsage, stdout)
	o.addFlags(fs)
	if err := cmdline.ParseFlags(fs, args); err != nil {
		return err
	}
	maxMem, views, err := o.check()
	if err != nil {
		return err
	}
	opts, err := o.ClearFlags.Options()
	if err != nil {
		return err
	}
	p, lines, name, err := o.read(stdin, views)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	pr := cmdline.NewProgress(stderr)
	if o.method != multiway.CLEAR {
		return solveMethod(ctx, &o, p, lines, name, maxMem, pr, stdout, stderr)
	}
	opts.Status = func(st clear.SolveStatus) { pr.Status(pipeline.StageSolve, st.Done, st.Total, st.String()) }
	res, err := clear.SolveContext(ctx, p, opts)
	if err != nil {
		var ie *clear.InputError
		if errors.As(err, &ie) && ie.Index >= 0 && ie.Index < len(lines) {
			return fmt.Errorf("%s: line %d: %v", name, lines[ie.Index], ie.Err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := o.write(p, res.Item, res.Pairs, stdout); err != nil {
		return err
	}
	o.summarize(stderr, p, res)
	return nil
}

func (o *solveOptions) addFlags(fs *cmdline.FlagSet) {
	fs.StringVar(&o.in, "in", "-", "input file, - for stdin")
	fs.StringVar(&o.out, "out", "-", "output file, - for stdout")
	fs.StringVar(&o.informat, "informat", "text", "input format: text or mtx (Matrix Market)")
	fs.StringVar(&o.views, "views", "", "view sizes for -informat mtx, comma-separated (e.g. 6,8,10)")
	fs.StringVar(&o.outformat, "outformat", "items", "output: items (one universe item per observation) or pairs")
	fs.Float64Var(&o.Threshold, "threshold", clear.DefaultThreshold, "eigenvalue threshold of the universe size estimate")
	fs.IntVar(&o.Universe, "universe", 0, "known universe size; 0 estimates it")
	fs.StringVar(&o.Assignment, "assignment", "greedy", "assignment: greedy (the reference code's) or hungarian (optimal)")
	fs.StringVar(&o.Eigen, "eigen", "auto", "eigensolver: auto, dense or iterative")
	fs.IntVar(&o.MaxComponent, "max-component", 0, "split components larger than this before decomposing them (0: never, the paper's exact algorithm)")
	fs.StringVar(&o.method, "method", "clear", "method: "+strings.Join(multiway.Methods, ", "))
	fs.Uint64Var(&o.seed, "seed", multiway.DefaultSeed, "seed of MatchALS's initial factor and QuickMatch's tie-break")
	fs.StringVar(&o.maxMemory, "max-memory", "4GiB", "refuse a method that plans to use more memory (e.g. 512MiB, 8GiB; 0: no limit)")
	fs.Float64Var(&o.maxGflop, "max-gflop", multiway.DefaultMaxFlop/1e9, "refuse a method that plans more work, in 10⁹ floating-point operations (0: no limit)")
}

// check refuses impossible flag values and returns the memory limit and,
// for Matrix Market input, the view sizes.
func (o *solveOptions) check() (int64, []int, error) {
	if _, err := cmdline.OneOf("-method", o.method, cmdline.SetOf(multiway.Methods)); err != nil {
		return 0, nil, err
	}
	maxMem, err := cmdline.ParseBytes(o.maxMemory)
	if err != nil {
		return 0, nil, cmdline.Usagef("-max-memory %q: %v", o.maxMemory, err)
	}
	if !(o.maxGflop >= 0) {
		return 0, nil, cmdline.Usagef("-max-gflop %v: want 0 (no limit) or more", o.maxGflop)
	}
	if o.method != multiway.CLEAR && o.outformat == "items" && (o.method == multiway.MatchEIG || o.method == multiway.MatchALS) {
		return 0, nil, cmdline.Usagef("-method %s gives associations, not a partition: use -outformat pairs", o.method)
	}
	var views []int
	switch o.informat {
	case "text":
		if o.views != "" {
			return 0, nil, cmdline.Usagef("-views goes with -informat mtx")
		}
	case "mtx":
		if views, err = parseViews(o.views); err != nil {
			return 0, nil, err
		}
	default:
		return 0, nil, cmdline.Usagef("-informat %q: want text or mtx", o.informat)
	}
	if o.outformat != "items" && o.outformat != "pairs" {
		return 0, nil, cmdline.Usagef("-outformat %q: want items or pairs", o.outformat)
	}
	return maxMem, views, nil
}

// read reads the problem from -in (stdin for -) and returns it with the
// line of each association and the input's name for messages.
func (o *solveOptions) read(stdin io.Reader, views []int) (*clear.Problem, []int, string, error) {
	name := o.in
	var r io.Reader = stdin
	if o.in != "-" {
		f, err := os.Open(o.in)
		if err != nil {
			return nil, nil, "", err
		}
		defer f.Close()
		r = f
	} else {
		name = "stdin"
	}
	var p *clear.Problem
	var lines []int
	var err error
	if o.informat == "mtx" {
		p, lines, err = clear.ReadMatrixMarket(r, views)
	} else {
		p, lines, err = clear.ReadText(r)
	}
	if err != nil {
		return nil, nil, "", fmt.Errorf("%s: %w", name, err)
	}
	return p, lines, name, nil
}

// summarize prints the solve's one line on stderr.
func (o *solveOptions) summarize(stderr io.Writer, p *clear.Problem, res *clear.Result) {
	split := ""
	if res.SplitComponents > 0 {
		split = fmt.Sprintf(" after splitting %d over %d (%d associations cut)", res.SplitComponents, o.MaxComponent, res.CutAssociations)
	}
	fmt.Fprintf(stderr, "solve: %d observations, %d views, %d associations (%d inside a view, dropped), %d components (largest %d%s), universe %d (%d eigenvalues below %g), %d items, %v\n",
		p.NumObservations(), len(p.ViewSizes), len(p.Associations), res.Dropped, res.Components, res.LargestComponent, split,
		res.UniverseSize, res.BelowThreshold, o.Threshold, res.Items, res.Timing.Total().Round(10_000))
}

func parseViews(s string) ([]int, error) {
	if s == "" {
		return nil, cmdline.Usagef("-informat mtx needs -views (e.g. -views 6,8,10)")
	}
	var views []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 {
			return nil, cmdline.Usagef("-views: %q is not a non-negative integer", f)
		}
		views = append(views, n)
	}
	return views, nil
}

// write writes a solve's output: the items, or the pairs (built only when
// asked for) in the input's format.
func (o *solveOptions) write(p *clear.Problem, item []int, pairs func() []clear.Pair, stdout io.Writer) error {
	var buf bytes.Buffer
	var err error
	switch {
	case o.outformat == "items":
		for _, it := range item {
			buf.WriteString(strconv.Itoa(it))
			buf.WriteByte('\n')
		}
	case o.informat == "mtx":
		err = clear.WritePairsMatrixMarket(&buf, p.NumObservations(), pairs())
	default:
		err = clear.WritePairsText(&buf, p.ViewSizes, pairs())
	}
	if err != nil {
		return err
	}
	if o.out == "-" {
		_, err = stdout.Write(buf.Bytes())
		return err
	}
	return export.WriteFileAtomic(o.out, buf.Bytes())
}

// solveMethod runs one of the compared methods on p.
func solveMethod(ctx context.Context, o *solveOptions, p *clear.Problem, lines []int, name string, maxMem int64, pr *cmdline.Progress, stdout, stderr io.Writer) error {
	mo := &multiway.Options{Universe: o.Universe, Seed: o.seed, MaxMemory: maxMem, MaxFlop: o.maxGflop * 1e9}
	if maxMem == 0 {
		mo.MaxMemory = -1
	}
	if o.maxGflop == 0 {
		mo.MaxFlop = -1
	}
	mo.Progress = func(done, total int) { pr.Update(o.method, done, total) }
	res, err := multiway.Run(ctx, o.method, p, mo)
	if err != nil {
		var ie *clear.InputError
		var big *multiway.ErrTooLarge
		var slow *multiway.ErrTooSlow
		switch {
		case errors.As(err, &ie) && ie.Index >= 0 && ie.Index < len(lines):
			return fmt.Errorf("%s: line %d: %v", name, lines[ie.Index], ie.Err)
		case errors.As(err, &big):
			return fmt.Errorf("%s: %w (-max-memory raises it)", name, err)
		case errors.As(err, &slow):
			return fmt.Errorf("%s: %w (-max-gflop raises it)", name, err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	if err := o.write(p, res.Item, func() []clear.Pair { return res.Pairs }, stdout); err != nil {
		return err
	}
	view := make([]int, 0, p.NumObservations())
	for v, n := range p.ViewSizes {
		for range n {
			view = append(view, v)
		}
	}
	iters := ""
	if res.Iterations > 0 {
		iters = fmt.Sprintf(", %d iterations (converged: %v)", res.Iterations, res.Converged)
	}
	fmt.Fprintf(stderr, "solve: %s on %d observations, %d views, %d associations: universe %d, %d pairs, consistent %v, distinct %v%s, %v\n",
		o.method, p.NumObservations(), len(p.ViewSizes), len(p.Associations), res.Universe, len(res.Pairs),
		eval.IsCycleConsistent(p.NumObservations(), res.Pairs), eval.IsDistinct(view, res.Pairs), iters, res.Time.Round(10_000))
	return nil
}
