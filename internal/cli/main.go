// Package cli is the clearmatch command: the table of its subcommands and
// the small ones (cache, datasets, synth-photos, version). Each larger
// command lives in a package of its own under internal/cli (match and
// tracks, fuse, solve, paper's eval, demo, synth and compare, eval-sfm);
// what they share (flags, usage errors, progress, output folders) is
// package cmdline. cmd/clearmatch is its main.
//
// Exit codes: 0 success, 1 the work failed (bad input data, I/O), 2 bad
// usage (unknown command or flag, impossible flag value), 130 interrupted.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/clearmatch/clearmatch/internal/cli/evalsfm"
	"github.com/clearmatch/clearmatch/internal/cli/fuse"
	"github.com/clearmatch/clearmatch/internal/cli/match"
	"github.com/clearmatch/clearmatch/internal/cli/paper"
	"github.com/clearmatch/clearmatch/internal/cli/solve"
	"github.com/clearmatch/clearmatch/internal/cmdline"
)

// command is one subcommand: its flags are registered on fs by setup, and
// run does the work.
type command struct {
	name, usage, summary string
	run                  cmdline.Func
}

var commands = []command{
	{"match", "match DIR|IMAGE... -out OUTDIR", "the main job: image folder in, cycle-consistent tracks out", match.Run},
	{"tracks", "tracks DATABASE -out DIR", "reads a COLMAP database (COLMAP's or hloc's matches) and writes consistent tracks and a database for the mapper", match.RunTracks},
	{"demo", "demo [-out DIR]", "the embedded default: a rendered planar scene through the whole pipeline", paper.RunDemo},
	{"eval", "eval hotel|graffiti", "reproduce the paper's CMU Hotel or Graffiti experiment", paper.RunEval},
	{"eval-sfm", "eval-sfm MODEL GT", "a COLMAP model's cameras against ground-truth cameras (Strecha format)", evalsfm.Run},
	{"fuse", "fuse MAPS -out DIR", "fuse landmark maps (a CSV or a robot log) with CLEAR; g2o file for SLAM", fuse.Run},
	{"synth-landmarks", "synth-landmarks -out DIR", "simulate a robot's run through landmarks, with the true association (for fuse)", fuse.RunSynthLandmarks},
	{"solve", "solve [flags]", "run CLEAR (or -method: a compared method) on pairwise associations", solve.Run},
	{"compare", "compare synthetic|hotel|graffiti", "the paper's comparison of CLEAR with six multi-view matching methods, with figures", paper.RunCompare},
	{"synth", "synth [-out DIR]", "CLEAR on a synthetic association problem of the paper's simulations", paper.RunSynth},
	{"synth-photos", "synth-photos -views N -out DIR", "render a long synthetic photo strip with known overlaps (scale benchmark)", runSynthPhotos},
	{"cache", "cache [-clean]", "where match's cache is and its size; -clean removes it", runCache},
	{"datasets", "datasets fetch|verify", "download or check the Hotel and Graffiti benchmarks", runDatasets},
}

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

// Run runs the clearmatch command line args (a command and its flags)
// and returns its exit code, as the clearmatch binary does.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, args, stdin, stdout, stderr)
}

// Finish prints a command's error as one line on stderr, prefixed with
// prog, and returns its exit code (cmdline.Finish).
func Finish(ctx context.Context, prog string, err error, stderr io.Writer) int {
	return cmdline.Finish(ctx, prog, err, stderr)
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
		return cmdline.Exec(ctx, c.name, c.run, args[1:], stdin, stdout, stderr)
	}
	names := []string{"help", "version"}
	for _, c := range commands {
		names = append(names, c.name)
	}
	if near := cmdline.NearestWord(args[0], names); near != "" {
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
