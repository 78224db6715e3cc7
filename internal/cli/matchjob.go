package cli

import (
	"context"
	"io"

	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/pipeline"
)

// MatchJob is a checked `clearmatch match` command line: what clearmatch-beam
// needs to run match's stages elsewhere with the same options.
type MatchJob struct {
	// Options are the pipeline's, as match would run them (pairs from
	// -pairs, caches from -cache).
	Options pipeline.Options
	// Camera is -intrinsics (zero: unknown).
	Camera geom.Intrinsics
	// Images are the inputs, in match's order.
	Images []pipeline.Image
	// Out is -out.
	Out   string
	force bool
}

// CheckOut refuses -out as match would at its start (a file, or a
// non-empty folder without -force), so that a long job fails before its
// work, not after it.
func (m *MatchJob) CheckOut() error { return outUsage(export.CheckOut(m.Out, m.force)) }

// ParseMatch checks match's arguments and lists the images, as `clearmatch
// match args...` does before any work; -h writes the usage to stdout.
func ParseMatch(args []string, stdout io.Writer) (*MatchJob, error) {
	var o matchOptions
	inputs, err := o.parse(args, stdout)
	if err != nil {
		return nil, err
	}
	in, err := o.readInputs(inputs)
	if err != nil {
		return nil, err
	}
	return &MatchJob{Options: o.pipe, Camera: o.camera, Images: in.images, Out: o.out, force: o.force}, nil
}

// MatchFlag reports whether name is one of match's flags.
func MatchFlag(name string) bool {
	var o matchOptions
	fs := newFlags("match", matchUsage, io.Discard)
	o.addFlags(fs)
	return fs.Lookup(name) != nil
}

// RunMatch runs `clearmatch match args...`, writing its console to stdout
// and stderr.
func RunMatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runMatch(ctx, args, nil, stdout, stderr)
}

// MatchRunner runs the stages from image files to tracks as pipeline.Run
// does, and with its result: match's is pipeline.Run; clearmatch-beam's
// runs the same stage values with their work sharded on Beam's workers.
type MatchRunner func(ctx context.Context, images []pipeline.Image, camera geom.Intrinsics, opts pipeline.Options) (*pipeline.Result, error)

// RunMatchBy is RunMatch with the stages run by run: the command line,
// console and outputs are match's.
func RunMatchBy(ctx context.Context, args []string, run MatchRunner, stdout, stderr io.Writer) error {
	return runMatchBy(ctx, args, run, stdout, stderr)
}

// Usagef is a bad-usage error (exit code 2 through Finish).
func Usagef(format string, a ...any) error { return usagef(format, a...) }

// Run runs the clearmatch command line args (a command and its flags)
// and returns its exit code, as the clearmatch binary does.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(ctx, args, stdin, stdout, stderr)
}
