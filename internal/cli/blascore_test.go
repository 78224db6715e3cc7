package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"golang.org/x/sys/cpu"
)

func TestBLASCoreFor(t *testing.T) {
	for _, tc := range []struct {
		core            string
		avx2fma, avx512 bool
		want            string
	}{
		{"Prescott", true, true, "SkylakeX"},
		{"Prescott", true, false, "Haswell"},
		{"Prescott", false, false, ""},
		{"Haswell", true, true, ""}, // OpenBLAS recognized the processor
		{"SkylakeX", true, true, ""},
		{"", true, true, ""}, // no OpenBLAS (cgo-free build)
	} {
		if got := blasCoreFor(tc.core, tc.avx2fma, tc.avx512); got != tc.want {
			t.Errorf("blasCoreFor(%q, %v, %v) = %q, want %q", tc.core, tc.avx2fma, tc.avx512, got, tc.want)
		}
	}
}

// TestBLASRestart: on a processor OpenBLAS takes for a generic one but that
// has AVX2, a matching command restarts once with a better kernel; solve
// (no BLAS) and a user's own OPENBLAS_CORETYPE never restart.
func TestBLASRestart(t *testing.T) {
	bin := buildBinary(t)
	cores := func(env []string, args ...string) []string {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), append(env, "OPENBLAS_VERBOSE=2")...)
		b, _ := cmd.CombinedOutput()
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if c, ok := strings.CutPrefix(strings.TrimSpace(l), "Core: "); ok {
				out = append(out, c)
			}
		}
		return out
	}
	first := cores(nil, "solve", "-h")
	if len(first) != 1 {
		t.Fatalf("solve -h: OpenBLAS printed cores %v, want one (no restart)", first)
	}
	if first[0] != "Prescott" || !(cpu.X86.HasAVX2 && cpu.X86.HasFMA) {
		t.Skipf("OpenBLAS recognizes this processor (%s) or it lacks AVX2: nothing to restart", first[0])
	}
	if got := cores(nil, "demo", "-h"); len(got) != 2 || got[1] == "Prescott" {
		t.Errorf("demo -h: cores %v, want Prescott then a restart with a better one", got)
	}
	if got := cores([]string{"OPENBLAS_CORETYPE=Prescott"}, "demo", "-h"); len(got) != 1 {
		t.Errorf("demo -h with the user's OPENBLAS_CORETYPE: cores %v, want no restart", got)
	}
}
