// Package cmdtest runs clearmatch commands in tests as the binary runs them.
package cmdtest

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/internal/cmdline"
)

// RunCommand runs `clearmatch args...` with args[0] one of commands, as
// the clearmatch binary does, and returns its exit code and console.
func RunCommand(tb testing.TB, commands map[string]cmdline.Func, stdin string, args ...string) (code int, stdout, stderr string) {
	tb.Helper()
	run, ok := commands[args[0]]
	if !ok {
		tb.Fatalf("%q is not one of the commands under test", args[0])
	}
	var out, errb bytes.Buffer
	code = cmdline.Exec(context.Background(), args[0], run, args[1:], strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}
