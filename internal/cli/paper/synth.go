package paper

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/clearmatch/clearmatch/clear"
	"github.com/clearmatch/clearmatch/eval"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pipeline"
)

const synthUsage = `synth [-out DIR] [-force] [flags]

A synthetic association problem of the paper's simulations (100 items, 10 views, observation ratio 0.5, 20% of the matches
reassigned at random), solved with CLEAR and scored against its ground truth.
Prints precision, recall and F1 of the input matches, their transitive closure,
and CLEAR's output, and writes problem.txt, items.txt and report.json to DIR.`

type synthReport struct {
	Problem       string             `json:"problem"`
	Observations  int                `json:"observations"`
	Views         int                `json:"views"`
	Associations  int                `json:"associations"`
	Components    int                `json:"input_components"`
	Largest       int                `json:"input_largest_component"`
	UniverseSize  int                `json:"universe_size"`
	TrueUniverse  int                `json:"true_universe_size"`
	Rows          map[string]row     `json:"rows"`
	TimingSeconds map[string]float64 `json:"timing_s"`
}

type row struct {
	eval.Scores
	CycleConsistent bool `json:"cycle_consistent"`
}

// RunSynth is `clearmatch synth`.
func RunSynth(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cmdline.NewFlags("synth", synthUsage, stdout)
	out := fs.String("out", "synth-out", "output directory")
	force := fs.Bool("force", false, "write into a non-empty output directory")
	seed := fs.Uint64("seed", 1, "seed of the synthetic problem")
	items := fs.Int("items", 100, "universe size")
	views := fs.Int("views", 10, "number of views")
	ratio := fs.Float64("ratio", 0.5, "observation ratio: the fraction of items each view observes")
	mismatch := fs.Float64("mismatch", 0.2, "fraction of correct matches reassigned at random")
	if err := cmdline.ParseFlags(fs, args); err != nil {
		return err
	}
	if *items < 1 || *views < 2 || !(*ratio > 0 && *ratio <= 1) || !(*mismatch >= 0 && *mismatch <= 1) {
		return cmdline.Usagef("want -items ≥ 1, -views ≥ 2, -ratio in (0, 1], -mismatch in [0, 1]")
	}
	stage, err := cmdline.NewStage(*out, *force)
	if err != nil {
		return err
	}
	defer stage.Discard()
	cfg := clear.SynthConfig{Items: *items, Views: *views, ObsRatio: *ratio, Mismatch: *mismatch, Seed: *seed}
	fmt.Fprintf(stderr, "synth: synthesizing %d items, %d views, observation ratio %g, %g%% mismatches\n",
		cfg.Items, cfg.Views, cfg.ObsRatio, 100*cfg.Mismatch)
	s := clear.Synthesize(cfg)
	p := s.Problem
	fmt.Fprintf(stderr, "synth: solving %d observations, %d associations\n", p.NumObservations(), len(p.Associations))
	res, err := clear.SolveContext(ctx, p, &clear.Options{Progress: cmdline.NewProgress(stderr).Stage(pipeline.StageSolve)})
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	l := p.NumObservations()
	input := make([]clear.Pair, len(p.Associations))
	for k, a := range p.Associations {
		input[k] = clear.Pair{A: min(a.A, a.B), B: max(a.A, a.B)}
	}
	truthItems := map[int]bool{}
	for _, t := range s.Truth {
		truthItems[t] = true
	}
	rep := synthReport{
		Problem:      fmt.Sprintf("synthetic: %+v", cfg),
		Observations: l, Views: len(p.ViewSizes), Associations: len(p.Associations),
		Components: res.Components, Largest: res.LargestComponent,
		UniverseSize: res.UniverseSize, TrueUniverse: len(truthItems),
		Rows: map[string]row{
			"input":   {eval.ScorePairs(s.Truth, input), false},
			"closure": {eval.ScoreGroups(s.Truth, eval.Closure(l, input)), true},
			"clear":   {eval.ScoreGroups(s.Truth, res.Item), true},
		},
		TimingSeconds: map[string]float64{
			"graph": res.Timing.Graph.Seconds(), "eigen": res.Timing.Eigen.Seconds(),
			"pivots": res.Timing.Pivots.Seconds(), "assign": res.Timing.Assign.Seconds(),
		},
	}
	inputRow := rep.Rows["input"]
	inputRow.CycleConsistent = eval.IsCycleConsistent(l, input)
	rep.Rows["input"] = inputRow

	fmt.Fprintf(stdout, "CLEAR on a synthetic problem: %d observations in %d views, %d input matches, %d components (largest %d)\n",
		l, len(p.ViewSizes), len(input), res.Components, res.LargestComponent)
	fmt.Fprintf(stdout, "universe size: estimated %d, true %d; CLEAR took %v\n\n", res.UniverseSize, len(truthItems), res.Timing.Total().Round(10_000))
	fmt.Fprintf(stdout, "%-8s %9s %9s %9s %9s %9s %11s\n", "", "precision", "recall", "F1", "returned", "correct", "consistent")
	for _, name := range []string{"input", "closure", "clear"} {
		r := rep.Rows[name]
		fmt.Fprintf(stdout, "%-8s %9.3f %9.3f %9.3f %9d %9d %11v\n", name, r.Precision, r.Recall, r.F1, r.Returned, r.Correct, r.CycleConsistent)
	}

	var pb bytes.Buffer
	fmt.Fprintf(&pb, "# %s\n", rep.Problem)
	if err := clear.WriteText(&pb, p); err != nil {
		return err
	}
	var ib bytes.Buffer
	for _, it := range res.Item {
		ib.WriteString(strconv.Itoa(it))
		ib.WriteByte('\n')
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := cmdline.WriteFiles(stage.Dir, map[string][]byte{"problem.txt": pb.Bytes(), "items.txt": ib.Bytes(), "report.json": append(js, '\n')}); err != nil {
		return err
	}
	if err := stage.Publish(); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "synth: wrote problem.txt, items.txt, report.json to %s\n", *out)
	return nil
}
