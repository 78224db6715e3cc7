package cli

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/internal/testenv"
)

// TestMatchBinaryGraffiti builds the clearmatch binary and runs `match` on
// the Graffiti folder, then checks the files it wrote: every track has at
// most one observation per image, and matches.csv holds exactly the pairs
// that tracks.json implies. A second run reuses the feature cache. The
// images are downscaled to 400 px: what is checked is the files, not the
// accuracy (eval's tests check that at full size).
func TestMatchBinaryGraffiti(t *testing.T) {
	dir := filepath.Join(dataDirForTest(t), "graffiti")
	bin := buildBinary(t)
	out := filepath.Join(t.TempDir(), "out")
	cache := filepath.Join(t.TempDir(), "cache")
	run := func(args ...string) string {
		cmd := exec.Command(bin, append([]string{"match", dir, "-out", out, "-cache", cache, "-export", "colmap", "-max-dim", "400", "-overlays"}, args...)...)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("clearmatch match: %v\n%s", err, b)
		}
		return string(b)
	}
	first := run()
	var tr struct {
		Images []string
		Tracks []struct {
			ID           int
			Observations []struct {
				Image    string
				Keypoint int
				X, Y     float64
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "tracks.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	if len(tr.Images) != 6 || len(tr.Tracks) == 0 {
		t.Fatalf("%d images, %d tracks", len(tr.Images), len(tr.Tracks))
	}
	order := map[string]int{}
	for i, n := range tr.Images {
		order[n] = i
	}
	var implied []string
	for k, tk := range tr.Tracks {
		if tk.ID != k || len(tk.Observations) < 2 {
			t.Fatalf("track %d: id %d, %d observations", k, tk.ID, len(tk.Observations))
		}
		seen := map[string]bool{}
		for _, o := range tk.Observations {
			if seen[o.Image] {
				t.Fatalf("track %d has two observations in %s", k, o.Image)
			}
			seen[o.Image] = true
		}
		for x := 0; x < len(tk.Observations); x++ {
			for y := x + 1; y < len(tk.Observations); y++ {
				a, c := tk.Observations[x], tk.Observations[y]
				if order[a.Image] > order[c.Image] {
					a, c = c, a
				}
				implied = append(implied, fmt.Sprintf("%s,%d,%s,%d", a.Image, a.Keypoint, c.Image, c.Keypoint))
			}
		}
	}
	f, err := os.Open(filepath.Join(out, "matches.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs[1:] {
		got = append(got, strings.Join(r, ","))
	}
	sort.Strings(implied)
	sort.Strings(got)
	if strings.Join(implied, "\n") != strings.Join(got, "\n") {
		t.Fatalf("matches.csv (%d rows) differs from the pairs tracks.json implies (%d)", len(got), len(implied))
	}
	for _, p := range []string{"report.json", "overlays/items_img1_ppm.png", "overlays/pair_0_1_clear.png", "colmap/matches.txt", "colmap/features/img6.ppm.txt"} {
		if _, err := os.Stat(filepath.Join(out, p)); err != nil {
			t.Error(err)
		}
	}
	// Without -force, a non-empty output directory is refused (exit 2).
	cmd := exec.Command(bin, "match", dir, "-out", out, "-cache", cache)
	if err := cmd.Run(); err == nil {
		t.Error("second run without -force succeeded")
	} else if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
		t.Errorf("second run without -force: %v, want exit 2", err)
	}
	second := run("-force")
	if !strings.Contains(second, "6 of the images' features from the cache") {
		t.Errorf("second run did not use the cache:\n%s", second)
	}
	if strings.Contains(first, "6 of the images' features from the cache") {
		t.Errorf("first run claims cached features:\n%s", first)
	}
	// Completion and the weak-pair filter are on by default and need
	// verified geometry: -verify=false alone turns them off (asked for
	// with it, they are usage errors: TestMatchBadFolder).
	if unverified := run("-force", "-verify=false"); strings.Contains(unverified, "weak ") {
		t.Errorf("-verify=false ran the weak-pair filter:\n%s", unverified)
	}
}

func TestMatchBadFolder(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.png"), []byte("not a png"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.jpg"), nil, 0o644)
	out := filepath.Join(t.TempDir(), "o")
	code, _, stderr := runCmd(t, "", "match", dir, "-out", out, "-cache", "")
	if code != 1 || !strings.Contains(stderr, "a.png") || !strings.Contains(stderr, "fewer than two usable images") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 0 {
		t.Errorf("failed run left %v in the output directory", entries)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"match", dir}, "-out is required"},
		{[]string{"match", dir, "-out", out, "-ratio", "1.2"}, "-ratio 1.2"},
		{[]string{"match", dir, "-out", out, "-max-features", "-3"}, "-max-features -3: want 0 or more"},
		{[]string{"match", dir, "-out", out, "-workers", "-1"}, "-workers -1: want 0 or more"},
		{[]string{"match", dir, "-out", out, "-weak-pairs", "-1"}, "-weak-pairs -1: want 0 or more"},
		{[]string{"match", dir, "-out", out, "-weak-threshold", "NaN"}, "-weak-threshold NaN: want a positive number of pixels"},
		{[]string{"match", dir, "-out", out, "-rotation-loops", "-1"}, "-rotation-loops -1: want degrees in [0, 180) (0: off)"},
		{[]string{"match", dir, "-out", out, "-rotation-loops", "NaN"}, "-rotation-loops NaN: want degrees in [0, 180) (0: off)"},
		{[]string{"match", dir, "-out", out, "-rotation-loops", "3"}, "-rotation-loops needs -verify and -intrinsics"},
		{[]string{"match", dir, "-out", out, "-self-calibrate", "-intrinsics", "1000,1000,50,50"}, "-self-calibrate needs -verify and no -intrinsics"},
		{[]string{"match", dir, "-out", out, "-self-calibrate", "-verify=false"}, "-self-calibrate needs -verify and no -intrinsics"},
		{[]string{"match", dir, "-out", out, "-reproj-filter", "1", "-verify=false"}, "-reproj-filter needs -verify"},
		{[]string{"match", dir, "-out", out, "-reproj-filter", "-1"}, "-reproj-filter -1: want 0 (off)"},
		{[]string{"match", dir, "-out", out, "-reproj-filter", "NaN"}, "-reproj-filter NaN: want 0 (off)"},
		{[]string{"match", "-out", out}, "no images"},
		{[]string{"match", dir, "-out", out, "-export", "bundler"}, "-export"},
		{[]string{"match", dir, "-out", out, "-pairs", "retreival"}, `-pairs "retreival": not auto, exhaustive, sequential, retrieval, nor a file`},
		{[]string{"match", dir, "-out", out, "-retrieval-k", "0"}, "-retrieval-k 0"},
		{[]string{"match", dir, "-out", out, "-completion-rounds", "-1"}, "-completion-rounds -1"},
		{[]string{"match", dir, "-out", out, "-completion-min-chains", "-1"}, "-completion-min-chains -1: want 0"},
		{[]string{"match", dir, "-out", out, "-descriptor-memory", "-1"}, "-descriptor-memory -1: want 0"},
		{[]string{"match", dir, "-out", out, "-min-inlier-ratio", "1.5"}, "-min-inlier-ratio 1.5: want a number in [0, 1]"},
		{[]string{"match", dir, "-out", out, "-complete-angle", "90"}, "-complete-angle 90: want degrees in (0, 90)"},
		{[]string{"match", dir, "-out", out, "-complete-lines", "1"}, "-complete-lines 1: want at least 2"},
		{[]string{"match", dir, "-out", out, "-complete-pair-matches", "0"}, "-complete-pair-matches 0: want at least 1"},
		{[]string{"match", dir, "-out", out, "-complete-distance", "-3"}, "-complete-distance -3: want a positive descriptor distance"},
		{[]string{"match", dir, "-out", out, "-verify=false", "-complete"}, "-complete needs -verify"},
		{[]string{"match", dir, "-out", out, "-verify=false", "-weak-pairs", "300"}, "-weak-pairs needs -verify"},
	} {
		if code, _, stderr := runCmd(t, "", tc.args...); code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestNoCgoBinary builds clearmatch with CGO_ENABLED=0: solve works in
// full, and an image command fails at once with one line saying how to
// build with OpenCV, writing nothing.
func TestNoCgoBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	problem := testenv.Require(t, filepath.Join(testenv.SharedDir(), "testdata", "problems", "hotel-sift.txt"))
	bin := filepath.Join(t.TempDir(), "clearmatch")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/clearmatch")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	items := filepath.Join(t.TempDir(), "items.txt")
	if out, err := exec.Command(bin, "solve", "-in", problem, "-out", items).CombinedOutput(); err != nil || !strings.Contains(string(out), "universe 57") {
		t.Fatalf("solve: %v\n%s", err, out)
	}
	if b, _ := os.ReadFile(items); strings.Count(string(b), "\n") != 3030 {
		t.Errorf("items.txt has %d lines, want 3030", strings.Count(string(b), "\n"))
	}
	for _, args := range [][]string{{"match", t.TempDir(), "-out", filepath.Join(t.TempDir(), "o")}, {"demo", "-out", filepath.Join(t.TempDir(), "d")}, {"eval", "graffiti"}} {
		cmd := exec.Command(bin, args...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		msg := strings.TrimSpace(stderr.String())
		if !ok || ee.ExitCode() != 1 || strings.Count(msg, "\n") != 0 || !strings.Contains(msg, "built without OpenCV") || !strings.Contains(msg, "libopencv-dev") {
			t.Errorf("%s: %v, stderr %q", args[0], err, msg)
		}
	}
}

// TestColmapExportOddNames: names with spaces (and accents) are ordinary
// in photo folders. -export colmap writes database.db with every image
// and the text formats for what they can express, with one warning line
// naming what matches.txt leaves out; a name with a line break costs only
// the text formats. Before, the run was refused at once.
func TestColmapExportOddNames(t *testing.T) {
	bin := buildBinary(t)
	src := graffitiCopies(t, 3)
	for _, tc := range []struct {
		odd      string // img1.ppm's new name
		text     bool   // the text formats are written
		warnings string // what the warning line says
	}{
		{"IMG 0001.ppm", true, `matches.txt leaves out the pairs of 1 image(s) whose names hold a space, which its lines cannot express: "IMG 0001.ppm"`},
		{"Château 2.ppm", true, `"Château 2.ppm"`},
		{"line\nbreak.ppm", false, `colmap text formats (features/, matches.txt) not written: image name "line\nbreak.ppm" holds a line break`},
	} {
		dir := t.TempDir()
		for _, n := range []string{"img1.ppm", "img2.ppm", "img3.ppm"} {
			to := n
			if n == "img1.ppm" {
				to = tc.odd
			}
			if err := os.Link(filepath.Join(src, n), filepath.Join(dir, to)); err != nil {
				t.Fatal(err)
			}
		}
		out := filepath.Join(t.TempDir(), "out")
		cmd := exec.Command(bin, "match", dir, "-out", out, "-export", "colmap", "-max-dim", "400", "-cache", "", "-overlay-pairs", "none")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%q: %v\n%s", tc.odd, err, stderr.String())
			continue
		}
		if n := strings.Count(stderr.String(), "warning:"); n != 1 || !strings.Contains(stderr.String(), tc.warnings) {
			t.Errorf("%q: want one warning with %q:\n%s", tc.odd, tc.warnings, stderr.String())
		}
		db, err := os.ReadFile(filepath.Join(out, "colmap", "database.db"))
		if err != nil || !strings.Contains(string(db), tc.odd) {
			t.Errorf("%q: database.db missing or without the image (%v)", tc.odd, err)
		}
		_, err = os.Stat(filepath.Join(out, "colmap", "features", tc.odd+".txt"))
		if (err == nil) != tc.text {
			t.Errorf("%q: features file written %v, want %v", tc.odd, err == nil, tc.text)
		}
		m, err := os.ReadFile(filepath.Join(out, "colmap", "matches.txt"))
		if (err == nil) != tc.text || strings.Contains(string(m), tc.odd) {
			t.Errorf("%q: matches.txt written %v (want %v) or holds the name", tc.odd, err == nil, tc.text)
		}
		if tc.text && !strings.Contains(string(m), "img2.ppm img3.ppm\n") {
			t.Errorf("%q: matches.txt lacks the other pair:\n%.200s", tc.odd, m)
		}
		for _, f := range []string{"tracks.json", "matches.csv", "report.json"} {
			if _, err := os.Stat(filepath.Join(out, f)); err != nil {
				t.Errorf("%q: %v", tc.odd, err)
			}
		}
	}
}

// TestMessagesStayOneLine: a file name with a line break is written as \n
// in warnings and errors, so every message stays one line.
func TestMessagesStayOneLine(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "bad\nname.png"), []byte("junk"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.png"), []byte("junk"), 0o644)
	code, _, stderr := runCmd(t, "", "match", dir, "-out", filepath.Join(t.TempDir(), "o"), "-cache", "")
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, line := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.Contains(line, "warning: skipping") && !strings.HasPrefix(line, "clearmatch match:") && !strings.HasPrefix(line, "extract") {
			t.Errorf("a message broke over lines: %q in\n%s", line, stderr)
		}
	}
	if !strings.Contains(stderr, `bad\nname.png`) {
		t.Errorf("the name is not written with \\n:\n%s", stderr)
	}
}
