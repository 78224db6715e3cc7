package match

import (
	"context"
	"io"

	"github.com/clearmatch/clearmatch/export"
	"github.com/clearmatch/clearmatch/geom"
	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/pipeline"
)

// Job is a checked `clearmatch match` command line: what clearmatch-beam
// needs to run match's stages elsewhere with the same options.
type Job struct {
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
func (m *Job) CheckOut() error { return cmdline.OutUsage(export.CheckOut(m.Out, m.force)) }

// ParseJob checks match's arguments and lists the images, as `clearmatch
// match args...` does before any work; -h writes the usage to stdout.
func ParseJob(args []string, stdout io.Writer) (*Job, error) {
	var o matchOptions
	inputs, err := o.parse(args, stdout)
	if err != nil {
		return nil, err
	}
	in, err := o.readInputs(inputs)
	if err != nil {
		return nil, err
	}
	return &Job{Options: o.pipe, Camera: o.camera, Images: in.images, Out: o.out, force: o.force}, nil
}

// IsFlag reports whether name is one of match's flags.
func IsFlag(name string) bool {
	var o matchOptions
	fs := cmdline.NewFlags("match", matchUsage, io.Discard)
	o.addFlags(fs)
	return fs.Lookup(name) != nil
}

// Runner runs the stages from image files to tracks as pipeline.Run
// does, and with its result: match's is pipeline.Run; clearmatch-beam's
// runs the same stage values with their work sharded on Beam's workers.
type Runner func(ctx context.Context, images []pipeline.Image, camera geom.Intrinsics, opts pipeline.Options) (*pipeline.Result, error)

// RunBy is Run with the stages run by run: the command line,
// console and outputs are match's.
func RunBy(ctx context.Context, args []string, run Runner, stdout, stderr io.Writer) error {
	return runBy(ctx, args, run, stdout, stderr)
}
