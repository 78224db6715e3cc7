package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/clearmatch/clearmatch/internal/cli"
)

// TestProcessWorkers runs clearmatch-beam as a cluster runs it: Prism
// starts each worker as a separate process through Beam's boot loader
// (scripts/beam-process-boot.sh), which fetches the staged cgo worker
// binary and runs it with --worker=true. Pairs are chosen by retrieval,
// so that its codes go from worker to worker through the job's folder.
// The tracks must be match's. The
// launcher runs in its own process group with a deadline, because Prism
// waits forever on a dead worker and leaves its workers running after
// the job.
func TestProcessWorkers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	photos := castlePhotos(t, 3)
	bin := t.TempDir()
	for _, b := range [][2]string{{"clearmatch-beam", "."}, {"boot", "github.com/apache/beam/sdks/v2/go/container"}} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, b[0]), b[1]).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", b[1], err, out)
		}
	}
	dir := t.TempDir()
	want, got := filepath.Join(dir, "match"), filepath.Join(dir, "beam")
	flags := []string{photos, "-max-dim", "320", "-workers", "1", "-pairs", "retrieval", "-retrieval-k", "1"}
	if code := cli.Run(context.Background(), append([]string{"match", "-out", want, "-cache", ""}, flags...), nil, io.Discard, io.Discard); code != 0 {
		t.Fatalf("match: exit %d", code)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin, "clearmatch-beam"), append(flags, "-out", got, "-cache", filepath.Join(dir, "cache"),
		"--environment_type=PROCESS", `--environment_config={"command":"`+filepath.Join(root, "scripts", "beam-process-boot.sh")+`"}`,
		"--worker_binary="+filepath.Join(bin, "clearmatch-beam"))...)
	cmd.Dir = dir // boot writes pipeline_options.json where it runs
	cmd.Env = append(os.Environ(), "BEAM_BOOT="+filepath.Join(bin, "boot"))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	// The workers Prism leaves behind hold stderr open: once the launcher
	// exits, stop reading after a moment, then kill them.
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Start()
	if err == nil {
		err = cmd.Wait()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // the launcher exited 0; only its workers' stderr was still open
	}
	if err != nil {
		t.Fatalf("clearmatch-beam with process workers: %v\n%s", err, stderr.String())
	}
	a, _ := os.ReadFile(filepath.Join(want, "tracks.json"))
	b, err := os.ReadFile(filepath.Join(got, "tracks.json"))
	if err != nil || len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("tracks.json differs from match's (%d and %d bytes, %v)", len(a), len(b), err)
	}
}
