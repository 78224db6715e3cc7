package cli

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/clearmatch/clearmatch/clear"
)

// The audit's classes, end to end through the binary: bad images, signals,
// a broken cache and special output paths. What is checked every time:
// exit code, one-line messages naming the file, no Go or C++ trace, no
// decoder chatter, and OUT as it was after a failed or interrupted run.

// buildBinary returns the clearmatch binary, built once per test run (see
// TestMain) on first use: a cgo link takes seconds, and seven tests need it.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	testBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "clearmatch-test-bin-")
		if err != nil {
			testBin.err = err
			return
		}
		testBin.dir = dir
		testBin.path = filepath.Join(dir, "clearmatch")
		if out, err := exec.Command("go", "build", "-o", testBin.path, "../../cmd/clearmatch").CombinedOutput(); err != nil {
			testBin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if testBin.err != nil {
		t.Fatal(testBin.err)
	}
	return testBin.path
}

// testBin is the binary buildBinary builds once; TestMain removes it.
var testBin struct {
	once      sync.Once
	dir, path string
	err       error
}

// TestMain removes the shared binary after the tests.
func TestMain(m *testing.M) {
	code := m.Run()
	if testBin.dir != "" {
		os.RemoveAll(testBin.dir)
	}
	os.Exit(code)
}

// noTrace fails when stderr shows a crash or a decoder talking.
func noTrace(t *testing.T, stderr string) {
	t.Helper()
	for _, bad := range []string{"goroutine ", "panic:", "terminate called", "cv::Exception", "libpng", "Corrupt JPEG", "Premature end", "[ WARN", "SIGSEGV"} {
		if strings.Contains(stderr, bad) {
			t.Errorf("stderr shows %q:\n%s", bad, stderr)
		}
	}
}

// hugePNG is a valid 8-bit gray PNG header declaring w×h with no pixels.
func hugePNG(w, h uint32) []byte {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 1, 1)))
	d := append([]byte(nil), b.Bytes()...)
	binary.BigEndian.PutUint32(d[16:], w)
	binary.BigEndian.PutUint32(d[20:], h)
	binary.BigEndian.PutUint32(d[29:], crc32.ChecksumIEEE(d[12:29]))
	return d
}

// graffitiCopies copies n Graffiti images into a new folder.
func graffitiCopies(t *testing.T, n int) string {
	t.Helper()
	src := filepath.Join(dataDirForTest(t), "graffiti")
	dir := t.TempDir()
	for k := 1; k <= n; k++ {
		name := "img" + string(rune('0'+k)) + ".ppm"
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	return dir
}

func TestMatchSurvivesBadImages(t *testing.T) {
	bin := buildBinary(t)
	dir := graffitiCopies(t, 3)
	// 1. a 60000×60000 header of 57 bytes; 2. a JPEG cut in half; 3. a
	// linked image (counts); 4. a dangling link; 5. a PNG of text.
	os.WriteFile(filepath.Join(dir, "huge.png"), hugePNG(60000, 60000), 0o644)
	var jb bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, 320, 240))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 31 % 251)
	}
	jpeg.Encode(&jb, img, nil)
	os.WriteFile(filepath.Join(dir, "cut.jpg"), jb.Bytes()[:jb.Len()/2], 0o644)
	os.Symlink(filepath.Join(dir, "img1.ppm"), filepath.Join(dir, "link.ppm"))
	os.Symlink(filepath.Join(dir, "gone.ppm"), filepath.Join(dir, "dangling.ppm"))
	os.WriteFile(filepath.Join(dir, "text.png"), []byte("not an image"), 0o644)

	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(bin, "match", dir, "-out", out, "-cache", "", "-overlay-pairs", "none", "-max-dim", "400")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("match: %v\n%s", err, stderr.String())
	}
	noTrace(t, stderr.String())
	warnings := map[string]string{}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if i := strings.Index(line, "warning: skipping "); i >= 0 {
			rest := line[i+len("warning: skipping "):]
			warnings[rest[:strings.Index(rest, ":")]] = rest
		}
	}
	for name, want := range map[string]string{"huge.png": "megapixels", "cut.jpg": "not a readable image", "dangling.ppm": "no such file", "text.png": "not a readable image"} {
		if !strings.Contains(warnings[name], want) {
			t.Errorf("%s: warning %q, want one naming it with %q", name, warnings[name], want)
		}
	}
	rep, err := os.ReadFile(filepath.Join(out, "report.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rep), `"link.ppm"`) {
		t.Error("the linked image is not in the report")
	}
}

// TestSignalsLeaveOutAsItWas: SIGTERM mid-run exits 130 and leaves neither
// OUT nor a stage; after kill -9 the next run removes the dead run's stage
// and succeeds.
func TestSignalsLeaveOutAsItWas(t *testing.T) {
	bin := buildBinary(t)
	dir := graffitiCopies(t, 6)
	root := t.TempDir()
	out := filepath.Join(root, "out")
	start := func() (*exec.Cmd, *bufio.Reader) {
		// Wait until extraction is under way.
		return startUntil(t, "extract", bin, "match", dir, "-out", out, "-cache", "", "-workers", "1")
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd, r := start()
		cmd.Process.Signal(sig)
		rest, _ := readAll(r)
		err := cmd.Wait()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("%v: exit %v, want 130", sig, err)
		}
		noTrace(t, rest)
		if names := entries(t, root); names != "" {
			t.Errorf("%v left %q beside OUT", sig, names)
		}
	}
	cmd, _ := start()
	cmd.Process.Kill()
	cmd.Wait()
	if names := entries(t, root); !strings.HasPrefix(names, ".clearmatch-tmp-out-") {
		t.Fatalf("after kill -9: %q (the test expects the dead run's stage)", names)
	}
	b, err := exec.Command(bin, "match", dir, "-out", out, "-cache", "", "-overlay-pairs", "none", "-max-dim", "400").CombinedOutput()
	if err != nil {
		t.Fatalf("the run after kill -9: %v\n%s", err, b)
	}
	if names := entries(t, root); names != "out" {
		t.Errorf("after the next run: %q, want only out", names)
	}
}

// startUntil starts bin with args and reads its stderr until a word
// holding marker appears (progress under way); it fails the test if the
// process ends first. The rest of stderr is left in the reader.
func startUntil(t *testing.T, marker, bin string, args ...string) (*exec.Cmd, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(pipe)
	for {
		w, err := r.ReadString(' ')
		if err != nil {
			t.Fatalf("%s ended without showing %q: %v", args[0], marker, err)
		}
		if strings.Contains(w, marker) {
			return cmd, r
		}
	}
}

func readAll(r *bufio.Reader) (string, error) {
	var b strings.Builder
	_, err := r.WriteTo(&b)
	return b.String(), err
}

func entries(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range es {
		n = append(n, e.Name())
	}
	return strings.Join(n, ",")
}

// TestBrokenCacheIsOneWarning: a -cache that cannot be a directory costs
// the cache, with one warning, and no image.
func TestBrokenCacheIsOneWarning(t *testing.T) {
	bin := buildBinary(t)
	dir := graffitiCopies(t, 3)
	blocker := filepath.Join(t.TempDir(), "cache")
	os.WriteFile(blocker, []byte("x"), 0o644)
	b, err := exec.Command(bin, "match", dir, "-out", filepath.Join(t.TempDir(), "o"), "-cache", blocker, "-overlay-pairs", "none", "-max-dim", "400").CombinedOutput()
	if err != nil {
		t.Fatalf("match: %v\n%s", err, b)
	}
	s := string(b)
	if strings.Count(s, "warning:") != 1 || !strings.Contains(s, "feature cache "+blocker) || strings.Contains(s, "skipping") {
		t.Errorf("want one cache warning and no skipped image:\n%s", s)
	}
}

// TestSolveOutSpecialPaths: solve -out onto a null device, a FIFO or a
// symlink writes through; the device, the FIFO and the link stay what they
// were. The device is a private node (made as root) rather than /dev/null,
// so that a regression cannot replace the machine's /dev/null.
func TestSolveOutSpecialPaths(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		null = "" // not root: the device case is left out
	}
	in := filepath.Join(dir, "p.txt")
	os.WriteFile(in, []byte("2 1 1\n0 2\n1 3\n"), 0o644)
	target := filepath.Join(dir, "items.txt")
	os.WriteFile(target, nil, 0o644)
	link := filepath.Join(dir, "link.txt")
	os.Symlink(target, link)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		got <- string(b)
	}()
	for _, out := range []string{null, link, fifo} {
		if out == "" {
			continue
		}
		if b, err := exec.Command(bin, "solve", "-in", in, "-out", out).CombinedOutput(); err != nil {
			t.Errorf("solve -out %s: %v\n%s", out, err, b)
		}
	}
	select {
	case s := <-got:
		if !strings.HasPrefix(s, "0\n") {
			t.Errorf("the FIFO's reader got %q", s)
		}
	case <-time.After(10 * time.Second):
		t.Error("nothing came through the FIFO")
	}
	for path, mode := range map[string]os.FileMode{null: os.ModeDevice, link: os.ModeSymlink, fifo: os.ModeNamedPipe} {
		if path == "" {
			continue
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&mode == 0 {
			t.Errorf("%s is now %v", path, fi.Mode())
		}
	}
	if b, _ := os.ReadFile(target); !strings.HasPrefix(string(b), "0\n") {
		t.Errorf("the link's target holds %q", b)
	}
}

// TestSolveInterrupt: a long solve (one component of 16000 observations,
// about 13 s here) shows progress and stops within seconds of SIGINT, with
// exit code 130 and no output file.
func TestSolveInterrupt(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	in := filepath.Join(dir, "p.txt")
	f, err := os.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	syn := clear.Synthesize(clear.SynthConfig{Items: 400, Views: 40, ObsRatio: 1, Mismatch: 0.3, Seed: 1})
	if err := clear.WriteText(f, syn.Problem); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "items.txt")
	// The progress line names the component under way (the time goes to
	// it), not a rate of observations with an ETA that grows.
	cmd, r := startUntil(t, "component", bin, "solve", "-in", in, "-out", out)
	sent := time.Now()
	cmd.Process.Signal(syscall.SIGINT)
	rest, _ := readAll(r)
	err = cmd.Wait()
	took := time.Since(sent)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit %v after SIGINT, want 130", err)
	}
	t.Logf("stopped %v after SIGINT", took.Round(time.Millisecond))
	if took > 5*time.Second {
		t.Errorf("the solve took %v to stop", took)
	}
	noTrace(t, rest)
	if strings.Contains(rest, "left)") {
		t.Errorf("the solve's progress shows an ETA:\n%s", rest)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an interrupted solve wrote %s", out)
	}
}
