package cli

import (
	"os"
	"runtime"
	"syscall"

	"golang.org/x/sys/cpu"

	"github.com/clearmatch/clearmatch/features"
)

// blasCommands are the commands whose matching runs on OpenBLAS.
var blasCommands = map[string]bool{"match": true, "eval": true, "demo": true, "compare": true}

// blasCoreFor returns the OPENBLAS_CORETYPE to restart with, or "": only
// when OpenBLAS took its generic kernel ("Prescott", for a processor whose
// model it does not recognize, as virtual machines often hide it) on a
// processor with AVX2 and FMA (Haswell's kernels) or AVX-512 F, BW, DQ and
// VL (SkylakeX's). The matcher's output does not depend on the kernel: it
// rescores every close call exactly.
func blasCoreFor(core string, avx2fma, avx512 bool) string {
	if core != "Prescott" {
		return ""
	}
	switch {
	case avx512:
		return "SkylakeX"
	case avx2fma:
		return "Haswell"
	}
	return ""
}

// tuneBLAS restarts the process with OPENBLAS_CORETYPE set when
// blasCoreFor says so (several times faster matching, docs/large-folders.md),
// at most once and never when the user chose a core type. It returns when
// there is nothing to do or the restart fails.
func tuneBLAS(args []string) {
	if runtime.GOOS != "linux" || len(args) == 0 || !blasCommands[args[0]] ||
		os.Getenv("OPENBLAS_CORETYPE") != "" || os.Getenv("CLEARMATCH_BLAS_RESTARTED") != "" {
		return
	}
	x := cpu.X86
	core := blasCoreFor(features.BLASCore(), x.HasAVX2 && x.HasFMA, x.HasAVX512F && x.HasAVX512BW && x.HasAVX512DQ && x.HasAVX512VL)
	if core == "" {
		return
	}
	exe, err := os.Executable()
	if err != nil {
		return
	}
	env := append(os.Environ(), "OPENBLAS_CORETYPE="+core, "CLEARMATCH_BLAS_RESTARTED=1")
	syscall.Exec(exe, append([]string{os.Args[0]}, args...), env) // returns only on failure
}
