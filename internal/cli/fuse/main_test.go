package fuse

import (
	"testing"

	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/internal/cmdline/cmdtest"
)

// runCmd runs `clearmatch fuse|synth-landmarks args...` as the binary does.
func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cmdtest.RunCommand(t, map[string]cmdline.Func{"fuse": Run, "synth-landmarks": RunSynthLandmarks}, stdin, args...)
}
