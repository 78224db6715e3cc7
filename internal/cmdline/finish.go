package cmdline

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

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
	fmt.Fprintf(stderr, "%s: %s\n", prog, OneLine(err.Error()))
	var ue UsageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// OneLine keeps a message on one line whatever a file name holds: line
// breaks inside it are written as \n and \r.
func OneLine(msg string) string {
	return strings.NewReplacer("\n", `\n`, "\r", `\r`).Replace(msg)
}

// Func is a command's work on the arguments after its name.
type Func func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error

// Exec runs the command name as the clearmatch binary does: its error as
// one line on stderr, and the exit code (Finish).
func Exec(ctx context.Context, name string, run Func, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Finish(ctx, "clearmatch "+name, run(ctx, args, stdin, stdout, stderr), stderr)
}
