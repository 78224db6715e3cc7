package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/datasets"
	"github.com/clearmatch/clearmatch/internal/testenv"
)

func runCmd(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func sharedDir() string { return testenv.SharedDir() }

func dataDirForTest(t *testing.T) string { return testenv.Require(t, testenv.DataDir()) }

func missingData(t *testing.T, err error) { t.Helper(); testenv.Missing(t, err) }

// TestSolveReference converts the reference vectors to the text format and
// checks that `clearmatch solve` reproduces the reference output, both as
// items and as pairs.
func TestSolveReference(t *testing.T) {
	dir := filepath.Join(sharedDir(), "testdata", "clear-reference")
	read := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			missingData(t, err)
		}
		return strings.Fields(string(b))
	}
	in, out := read("in.txt"), read("out.txt")
	const n = 65
	var prob strings.Builder
	prob.WriteString("# reference vectors\n6 8 10 8 6 5 5 5 8 4\n")
	var wantPairs []string
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if in[i*n+j] == "1" {
				fmt.Fprintf(&prob, "%d %d\n", i, j)
			}
			if out[i*n+j] == "1" {
				wantPairs = append(wantPairs, fmt.Sprintf("%d %d", i, j))
			}
		}
	}
	code, stdout, stderr := runCmd(t, prob.String(), "solve")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	items := strings.Fields(stdout)
	if len(items) != n {
		t.Fatalf("%d output lines, want %d", len(items), n)
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			same := items[i] == items[j]
			if same != (out[i*n+j] == "1") {
				t.Fatalf("observations %d and %d: together=%v, reference says %s", i, j, same, out[i*n+j])
			}
		}
	}
	if !strings.Contains(stderr, "65 observations, 10 views") || !strings.Contains(stderr, "universe 10") {
		t.Errorf("summary %q", stderr)
	}

	tmp := filepath.Join(t.TempDir(), "pairs.txt")
	if code, _, stderr = runCmd(t, prob.String(), "solve", "-outformat", "pairs", "-out", tmp); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if lines[0] != "6 8 10 8 6 5 5 5 8 4" || strings.Join(lines[1:], "\n") != strings.Join(wantPairs, "\n") {
		t.Errorf("pairs output differs from the reference (%d pairs, want %d)", len(lines)-1, len(wantPairs))
	}
}

func TestSolveErrors(t *testing.T) {
	dir := t.TempDir()
	outPath := filepath.Join(dir, "out.txt")
	for _, tc := range []struct {
		name, stdin string
		args        []string
		code        int
		want        string
	}{
		{"bad line", "2 2\n0 2\n0 x\n", nil, 1, "stdin: line 3: observation index \"x\" is not an integer"},
		{"out of range", "2 2\n# c\n0 7\n", nil, 1, "line 3: observation index 7 out of range [0, 4)"},
		{"duplicate", "2 2\n0 2\n1 3\n0 2\n", nil, 1, "line 4: duplicate association (0, 2)"},
		{"unknown flag", "", []string{"-bogus"}, 2, "unknown flag -bogus"},
		{"bad threshold", "", []string{"-threshold", "0"}, 2, "-threshold 0"},
		{"bad assignment", "", []string{"-assignment", "best"}, 2, "-assignment \"best\""},
		{"universe too small", "3 1\n0 3\n", []string{"-universe", "2"}, 1, "smaller than the largest view"},
		{"mtx without views", "", []string{"-informat", "mtx"}, 2, "needs -views"},
		{"missing file", "", []string{"-in", filepath.Join(dir, "nope.txt")}, 1, "nope.txt"},
		{"unknown method", "", []string{"-method", "magic"}, 2, "-method \"magic\": want one of clear, matchals"},
		{"no partition", "", []string{"-method", "matcheig"}, 2, "-method matcheig gives associations, not a partition: use -outformat pairs"},
		{"bad memory", "", []string{"-max-memory", "lots"}, 2, "-max-memory \"lots\""},
		{"method, bad line", "2 2\n0 2\n0 x\n", []string{"-method", "spectral"}, 1, "stdin: line 3: observation index \"x\" is not an integer"},
		{"method, universe too small", "3 1\n0 3\n", []string{"-method", "nmfsync", "-universe", "2"}, 1, "smaller than the largest view"},
		{"method over memory", "3 3\n0 3\n", []string{"-method", "matchlift", "-max-memory", "1KiB"}, 1, "matchlift needs"},
		{"method over work", "3 3\n0 3\n", []string{"-method", "matchlift", "-max-gflop", "0.000001"}, 1, "over the 1e+03 limit (-max-gflop raises it)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"solve", "-out", outPath}, tc.args...)
			code, _, stderr := runCmd(t, tc.stdin, args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, tc.code, tc.want)
			}
			if _, err := os.Stat(outPath); !os.IsNotExist(err) {
				t.Fatalf("output written despite the error")
			}
		})
	}
}

func TestSolveMatrixMarket(t *testing.T) {
	mtx := "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 2\n3 1\n4 2\n"
	code, stdout, stderr := runCmd(t, mtx, "solve", "-informat", "mtx", "-views", "2,2", "-outformat", "pairs")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want := "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 2\n3 1\n4 2\n"
	if stdout != want {
		t.Errorf("got %q, want %q", stdout, want)
	}
}

// clearRows parses the printed table: precision of the input and CLEAR,
// and whether CLEAR's output is consistent.
func clearRows(t *testing.T, stdout string) (inP, clP float64, consistent bool) {
	t.Helper()
	for _, line := range strings.Split(stdout, "\n") {
		f := strings.Fields(line)
		if len(f) < 7 || (f[0] != "input" && f[0] != "clear") {
			continue
		}
		v, _ := strconv.ParseFloat(f[1], 64)
		if f[0] == "input" {
			inP = v
		} else {
			clP, consistent = v, f[6] == "true"
		}
	}
	return inP, clP, consistent
}

// runScored runs command cmd with -out in a fresh directory, which it
// returns, and checks what every scored run must show: exit 0, CLEAR's
// precision above the input's and consistent, and the files written.
func runScored(t *testing.T, cmd string, files ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), cmd)
	code, stdout, stderr := runCmd(t, "", cmd, "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if inP, clP, ok := clearRows(t, stdout); !(clP > inP) || !ok {
		t.Errorf("CLEAR precision %v (consistent %v) not above the input's %v:\n%s", clP, ok, inP, stdout)
	}
	for _, name := range files {
		if _, err := os.Stat(filepath.Join(out, name)); err != nil {
			t.Error(err)
		}
	}
	return out
}

func TestSynth(t *testing.T) {
	out := runScored(t, "synth", "problem.txt", "items.txt", "report.json")
	// A second run refuses the non-empty directory without -force.
	if code, _, stderr := runCmd(t, "", "synth", "-out", out); code != 2 || !strings.Contains(stderr, "not empty") {
		t.Errorf("second run: exit %d, %q", code, stderr)
	}
	if code, _, _ := runCmd(t, "", "synth", "-out", out, "-views", "1"); code != 2 {
		t.Errorf("-views 1 accepted")
	}
}

func TestDemo(t *testing.T) {
	runScored(t, "demo", "images/view1.png", "images/view6.png", "report.json", "problem.txt", "overlays/pair_0_1_clear.png", "overlays/items_view3_png.png")
}

func TestUnknownCommand(t *testing.T) {
	if code, _, stderr := runCmd(t, "", "frobnicate"); code != 2 || !strings.Contains(stderr, "unknown command") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if code, stdout, _ := runCmd(t, "", "help"); code != 0 || !strings.Contains(stdout, "solve") {
		t.Errorf("help: exit %d, %q", code, stdout)
	}
}

func TestSynthPhotos(t *testing.T) {
	out := filepath.Join(t.TempDir(), "strip")
	code, _, stderr := runCmd(t, "", "synth-photos", "-views", "8", "-width", "96", "-height", "72", "-ordered", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	imgs, _ := os.ReadDir(filepath.Join(out, "images"))
	if len(imgs) != 8 || imgs[0].Name() != "view00000.png" {
		t.Fatalf("images %v", imgs)
	}
	tp, err := os.ReadFile(filepath.Join(out, "true_pairs.txt"))
	if err != nil || !strings.Contains(string(tp), "view00000.png view00001.png") || strings.Contains(string(tp), "view00000.png view00007.png") {
		t.Fatalf("true pairs %q, %v", tp, err)
	}
	// views.txt: view k's pixels to the plane, so that H_j⁻¹·H_i is the
	// strip's own homography from view i to view j.
	vs, err := os.ReadFile(filepath.Join(out, "views.txt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(vs)), "\n")
	if len(lines) != 9 || !strings.HasPrefix(lines[0], "# synth-photos -views 8") {
		t.Fatalf("views.txt: %q", vs)
	}
	toStrip := make([]datasets.Homography, 8)
	for k, line := range lines[1:] {
		f := strings.Fields(line)
		if len(f) != 10 || f[0] != fmt.Sprintf("view%05d.png", k) {
			t.Fatalf("views.txt line %d: %q", k+2, line)
		}
		for c := range toStrip[k] {
			if toStrip[k][c], err = strconv.ParseFloat(f[c+1], 64); err != nil {
				t.Fatal(err)
			}
		}
	}
	strip, err := datasets.NewStrip(datasets.StripConfig{Views: 8, Width: 96, Height: 72, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	inv, _ := toStrip[1].Inverse()
	x, y, _ := inv.Mul(toStrip[0]).Apply(40, 30)
	wx, wy, _ := strip.H(0, 1).Apply(40, 30)
	if x != wx || y != wy {
		t.Errorf("views.txt maps (40, 30) of view 0 to (%v, %v) in view 1, the strip to (%v, %v)", x, y, wx, wy)
	}
	for _, args := range [][]string{
		{"synth-photos", "-views", "1", "-out", out + "2"},
		{"synth-photos", "-views", "5"},
		{"synth-photos", "-views", "5", "-width", "10", "-out", out + "2"},
		{"synth-photos", "-views", "5", "-min-overlap", "0", "-out", out + "2"},
	} {
		if code, _, stderr := runCmd(t, "", args...); code != 2 || strings.Count(stderr, "\n") > 2 {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
}

// TestSolveMethods runs every compared method through the CLI on a small
// problem with one wrong association.
func TestSolveMethods(t *testing.T) {
	prob := "2 2 2\n0 2\n1 3\n2 4\n3 5\n0 4\n1 5\n1 4\n"
	for _, m := range []string{"clear", "spectral", "matcheig", "matchals", "nmfsync", "quickmatch", "matchlift"} {
		code, stdout, stderr := runCmd(t, prob, "solve", "-method", m, "-outformat", "pairs")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", m, code, stderr)
		}
		if !strings.HasPrefix(stdout, "2 2 2\n") || strings.Count(stdout, "\n") < 2 {
			t.Errorf("%s: output %q", m, stdout)
		}
		if m != "clear" && !strings.Contains(stderr, "solve: "+m+" on 6 observations") {
			t.Errorf("%s: summary %q", m, stderr)
		}
	}
	if code, stdout, _ := runCmd(t, prob, "solve", "-method", "quickmatch"); code != 0 || strings.Count(stdout, "\n") != 6 {
		t.Errorf("quickmatch items: %q", stdout)
	}
}

func TestCompareSynthetic(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cmp")
	code, stdout, stderr := runCmd(t, "", "compare", "synthetic", "-runs", "1", "-items", "20", "-views", "3,4", "-ratios", "0.5,1",
		"-grid2-views", "4", "-mismatch", "0,0.2", "-methods", "clear,matcheig,quickmatch", "-out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "grid 1: F1") || !strings.Contains(stdout, "grid 2: F1") {
		t.Errorf("stdout %q", stdout)
	}
	for _, f := range []string{"report.json", "cells.csv", "universe.csv", "grid1-f1.png", "grid1-f1.svg", "grid2-f1-completed.png", "grid2-universe.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"compare"}, "want what to compare"},
		{[]string{"compare", "synthetic", "-methods", "clear,nope"}, "-methods \"nope\""},
		{[]string{"compare", "synthetic", "-views", "5,x"}, "-views: \"x\" is not a number"},
		{[]string{"compare", "synthetic", "-runs", "0"}, "runs 0"},
		{[]string{"compare", "synthetic", "-grids", "3"}, "grid 3"},
	} {
		if code, _, stderr := runCmd(t, "", append(tc.args, "-out", filepath.Join(t.TempDir(), "x"))...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want %q", tc.args, code, stderr, tc.want)
		}
	}
}
