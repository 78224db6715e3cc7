package match

import (
	"testing"

	"github.com/clearmatch/clearmatch/internal/cmdline"
	"github.com/clearmatch/clearmatch/internal/cmdline/cmdtest"
	"github.com/clearmatch/clearmatch/internal/testenv"
)

// runCmd runs `clearmatch match|tracks args...` as the binary does.
func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cmdtest.RunCommand(t, map[string]cmdline.Func{"match": Run, "tracks": RunTracks}, stdin, args...)
}

func dataDirForTest(t *testing.T) string { return testenv.Require(t, testenv.DataDir()) }
