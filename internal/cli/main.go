// Package cli is the clearmatch command: its subcommands, flags, console
// and output folders. cmd/clearmatch is its main; clearmatch-beam (the
// nested module beam/) reuses match's flags and outputs from here.
//
// Exit codes: 0 success, 1 the work failed (bad input data, I/O), 2 bad
// usage (unknown command or flag, impossible flag value), 130 interrupted.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/clearmatch/clearmatch/features"
)

// command is one subcommand: its flags are registered on fs by setup, and
// run does the work.
type command struct {
	name, usage, summary string
	run                  func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error
}

var commands = []command{
	{"match", "match DIR|IMAGE... -out OUTDIR", "the main job: image folder in, cycle-consistent tracks out", runMatch},
	{"tracks", "tracks DATABASE -out DIR", "reads a COLMAP database (COLMAP's or hloc's matches) and writes consistent tracks and a database for the mapper", runTracks},
	{"demo", "demo [-out DIR]", "the embedded default: a rendered planar scene through the whole pipeline", runDemo},
	{"eval", "eval hotel|graffiti", "reproduce the paper's CMU Hotel or Graffiti experiment", runEval},
	{"eval-sfm", "eval-sfm MODEL GT", "a COLMAP model's cameras against ground-truth cameras (Strecha format)", runEvalSfM},
	{"fuse", "fuse MAPS -out DIR", "fuse landmark maps (a CSV or a robot log) with CLEAR; g2o file for SLAM", runFuse},
	{"synth-landmarks", "synth-landmarks -out DIR", "simulate a robot's run through landmarks, with the true association (for fuse)", runSynthLandmarks},
	{"solve", "solve [flags]", "run CLEAR (or -method: a compared method) on pairwise associations", runSolve},
	{"compare", "compare synthetic|hotel|graffiti", "the paper's comparison of CLEAR with six multi-view matching methods, with figures", runCompare},
	{"synth", "synth [-out DIR]", "CLEAR on a synthetic association problem of the paper's simulations", runSynth},
	{"synth-photos", "synth-photos -views N -out DIR", "render a long synthetic photo strip with known overlaps (scale benchmark)", runSynthPhotos},
	{"cache", "cache [-clean]", "where match's cache is and its size; -clean removes it", runCache},
	{"datasets", "datasets fetch|verify", "download or check the Hotel and Graffiti benchmarks", runDatasets},
}

// usageError marks errors in how the command was called (exit code 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, a ...any) error { return usageError{fmt.Errorf(format, a...)} }

// Main runs the command line os.Args and returns the exit code: the
// clearmatch binary's main.
func Main() int {
	tuneBLAS(os.Args[1:])
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first Ctrl-C cancels the work, which then stops cleanly; after
	// it, signals have their default effect, so a second one ends the
	// process at once.
	context.AfterFunc(ctx, stop)
	endProfile := startProfile(os.Stderr)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	endProfile()
	stop()
	return code
}

// Finish prints a command's error as one line on stderr, prefixed with
// prog, and returns its exit code: 0 (no error, or -h), 1 (the work
// failed), 2 (bad usage) or 130 (interrupted).
func Finish(ctx context.Context, prog string, err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case ctx.Err() != nil:
		fmt.Fprintf(stderr, "%s: interrupted\n", prog)
		return 130
	}
	fmt.Fprintf(stderr, "%s: %s\n", prog, oneLine(err.Error()))
	var ue usageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			return run(ctx, append([]string{args[1], "-h"}, args[2:]...), stdin, stdout, stderr)
		}
		printHelp(stdout)
		return 0
	}
	if args[0] == "version" || args[0] == "-version" || args[0] == "--version" {
		fmt.Fprintln(stdout, versionLine())
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		return Finish(ctx, "clearmatch "+c.name, c.run(ctx, args[1:], stdin, stdout, stderr), stderr)
	}
	names := []string{"help", "version"}
	for _, c := range commands {
		names = append(names, c.name)
	}
	if near := nearestWord(args[0], names); near != "" {
		fmt.Fprintf(stderr, "clearmatch: unknown command %q: did you mean %q?\n", args[0], near)
	} else {
		fmt.Fprintf(stderr, "clearmatch: unknown command %q (clearmatch help lists the commands)\n", args[0])
	}
	return 2
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "clearmatch turns pairwise matches into cycle-consistent tracks (CLEAR, Fathian et al., T-RO 2020).")
	fmt.Fprintln(w, "\nUsage: clearmatch COMMAND [flags]\n\nCommands:")
	for _, c := range commands {
		fmt.Fprintf(w, "  %-18s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, "  %-18s %s\n", "version", "the version and the source revision it was built from")
	fmt.Fprintln(w, "\n`clearmatch help COMMAND` or `clearmatch COMMAND -h` lists a command's flags with their defaults;")
	fmt.Fprintln(w, "`clearmatch COMMAND -h all` adds the tuning flags. The manual: docs/README.md in the source.")
	fmt.Fprintln(w, "Exit codes: 0 success, 1 failure, 2 bad usage, 130 interrupted.")
}

// needOpenCV fails at once in a binary built without cgo.
func needOpenCV() error {
	if !features.OpenCV {
		return features.ErrNoOpenCV
	}
	return nil
}

// oneLine keeps a message on one line whatever a file name holds: line
// breaks inside it are written as \n and \r.
func oneLine(msg string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(msg)
}
