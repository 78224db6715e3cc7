// Command clearmatch-beam runs `clearmatch match` on Apache Beam: feature
// extraction and each pair's matching and verification are sharded over
// the runner's workers (Prism, in this process, by default; Flink, Spark
// or Dataflow by -runner), then the tracks are assembled as match
// assembles them, from the caches the workers filled. It takes match's
// flags (same names, same defaults) and Beam's; the outputs are match's.
//
//	clearmatch-beam DIR -out OUT [match's flags] [-runner prism|flink|spark|dataflow|universal ...]
//
// The image folder and -cache must be paths every worker can read and
// write (one machine, or a shared file system on a cluster).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/runners"

	"github.com/clearmatch/clearmatch/internal/cli/match"
	"github.com/clearmatch/clearmatch/internal/cmdline"
)

const prog = "clearmatch-beam"

func main() {
	matchArgs, beamArgs := splitArgs(os.Args[1:])
	// Beam's flags first: a worker is started as `clearmatch-beam
	// --worker=true ...` and beam.Init runs it without returning.
	flag.CommandLine.Init(prog, flag.ContinueOnError)
	flag.CommandLine.SetOutput(io.Discard)
	if err := flag.CommandLine.Parse(beamArgs); err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", prog, err)
		os.Exit(2)
	}
	beam.Init()
	// Prism and the SDK log every job state, and a failed bundle five
	// times over; the console is match's, and a failed job is one line
	// (rootCause). CLEARMATCH_BEAM_LOG=debug|info|warn|error shows Beam's
	// own log.
	level := slog.LevelError + 4 // above every level Beam logs at
	if v := os.Getenv("CLEARMATCH_BEAM_LOG"); v != "" {
		if err := level.UnmarshalText([]byte(v)); err != nil {
			fmt.Fprintf(os.Stderr, "%s: CLEARMATCH_BEAM_LOG=%q: want debug, info, warn or error\n", prog, v)
			os.Exit(2)
		}
	}
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	context.AfterFunc(ctx, stop)
	code := cmdline.Finish(ctx, prog, run(ctx, matchArgs, os.Stdout, os.Stderr), os.Stderr)
	stop()
	os.Exit(code)
}

// splitArgs sends each flag to match when match has it, to Beam when Beam
// has it (with its value when that is the next argument), and everything
// else to match, which reports what it does not know.
func splitArgs(args []string) (matchArgs, beamArgs []string) {
	for k := 0; k < len(args); k++ {
		a := args[k]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := flag.CommandLine.Lookup(name)
		if !strings.HasPrefix(a, "-") || a == "-" || a == "--" || match.IsFlag(name) || f == nil {
			matchArgs = append(matchArgs, a)
			continue
		}
		beamArgs = append(beamArgs, a)
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !hasValue && !(ok && b.IsBoolFlag()) && k+1 < len(args) {
			k++
			beamArgs = append(beamArgs, args[k])
		}
	}
	return matchArgs, beamArgs
}

const usage = `Usage: clearmatch-beam DIR|IMAGE... -out OUTDIR [match's flags] [Beam's flags]

Runs clearmatch match on Apache Beam: extraction and each pair's matching
and verification on the runner's workers, then match's assembly from the
caches they filled (-cache, required: a folder every worker can reach).
The outputs are match's. Beam's flags include --runner (prism, the
default, in this process; flink, spark, dataflow, universal), --endpoint,
--environment_type, --environment_config and --worker_binary. The manual:
docs/scale.md.

`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" || a == "--h" {
			fmt.Fprint(stdout, usage)
			break
		}
	}
	job, err := match.ParseJob(args, stdout)
	if err != nil {
		return err
	}
	if job.Options.Cache.Features == "" {
		return cmdline.Usagef(`-cache "": clearmatch-beam's workers hand features and pairs over through the cache; give a folder every worker can reach`)
	}
	if err := checkRunner(*runners.Runner); err != nil {
		return err
	}
	if err := job.CheckOut(); err != nil {
		return err
	}
	stats, sol, err := runBeam(ctx, args, job, stderr)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "beam: %s\n", stats)
	// The assembly needs match's memory: give back the workers' (their
	// sets, Prism's buffers) first.
	processSets.clear()
	debug.FreeOSMemory()
	a := &assembly{solved: sol, refiner: &refiner{cache: job.Options.Cache.Features, report: stderr}, warn: stderr}
	return match.RunBy(ctx, args, a.run, stdout, stderr)
}

// knownRunners are the runners clearmatch-beam is built with (beamx's),
// by both of the names Beam registers them under; "" is prism.
var knownRunners = []string{"", "prism", "PrismRunner", "flink", "FlinkRunner", "spark", "SparkRunner",
	"dataflow", "DataflowRunner", "universal"}

// checkRunner refuses a runner Beam does not know before any work: Beam
// itself would exit with status 1 and only its (silenced) log saying why.
func checkRunner(name string) error {
	if slices.Contains(knownRunners, name) {
		return nil
	}
	return cmdline.Usagef("--runner %q: want prism (the default), flink, spark, dataflow or universal", name)
}
