package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
)

// versionLine says which clearmatch this is: the module version (set by
// `go install …@vX`), the VCS revision and time it was built from (set by
// `go build` in a checkout), and the Go toolchain.
func versionLine() string {
	version, rev, when, dirty := "(devel)", "", "", false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.time":
				when = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
	}
	line := "clearmatch " + version
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if dirty {
			rev += "+modified"
		}
		line += fmt.Sprintf(" (revision %s, %s)", rev, when)
	}
	return line + ", " + runtime.Version()
}
