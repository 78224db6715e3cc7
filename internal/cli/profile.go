package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"
)

// profileEnv names the file a CPU profile of the whole command is written
// to, for maintainers finding where a stage's time goes (go tool pprof).
const profileEnv = "CLEARMATCH_CPUPROFILE"

// startProfile starts the CPU profile that profileEnv asks for and returns
// the function that ends it; without it, both do nothing.
func startProfile(stderr io.Writer) func() {
	path := os.Getenv(profileEnv)
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(stderr, "clearmatch: %s: %v (no profile written)\n", profileEnv, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
