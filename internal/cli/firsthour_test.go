package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clearmatch/clearmatch/geom"
)

// TestMatchFolderErrors: a missing folder, an empty one, one whose images
// sit in a subfolder and a single image each get one line that says what
// to do, exit 1, and leave nothing behind: no output, no cache folder.
func TestMatchFolderErrors(t *testing.T) {
	root := t.TempDir()
	empty := filepath.Join(root, "empty")
	scene := filepath.Join(root, "scene")
	one := filepath.Join(root, "one")
	for _, d := range []string{empty, filepath.Join(scene, "images"), one} {
		os.MkdirAll(d, 0o755)
	}
	for _, p := range []string{filepath.Join(scene, "images", "a.jpg"), filepath.Join(scene, "images", "b.jpg"), filepath.Join(one, "a.png")} {
		os.WriteFile(p, []byte("x"), 0o644)
	}
	for _, tc := range []struct {
		in, want string
	}{
		{filepath.Join(root, "nosuch"), "nosuch: no such folder or image"},
		{empty, "holds no images (clearmatch reads the"},
		{scene, "holds no images, but its subfolder " + filepath.Join(scene, "images") + " holds 2: give that folder"},
		{one, "is one image; matching needs two or more"},
	} {
		out, cache := filepath.Join(root, "out"), filepath.Join(root, "cache")
		code, _, stderr := runCmd(t, "", "match", tc.in, "-out", out, "-cache", cache)
		if code != 1 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d, %q; want exit 1 and one line with %q", tc.in, code, stderr, tc.want)
		}
		for _, p := range []string{out, cache} {
			if _, err := os.Stat(p); !os.IsNotExist(err) {
				t.Errorf("%s: %s was created", tc.in, p)
			}
		}
	}
}

// TestUnknownNames: a mistyped flag or command gets one line naming the
// nearest known one; a name near none gets one line pointing at the help.
func TestUnknownNames(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"match", "-maxdim", "640"}, "unknown flag -maxdim: did you mean -max-dim?"},
		{[]string{"match", "-Out", "x"}, "did you mean -out?"},
		{[]string{"mtach"}, `unknown command "mtach": did you mean "match"?`},
		{[]string{"solve", "-zzzzzzzz"}, "unknown flag -zzzzzzzz (clearmatch solve -h all lists every flag)"},
		{[]string{"frobnicate"}, "clearmatch help lists the commands"},
		{[]string{"match", "-max-dim", "big"}, `invalid value "big" for flag -max-dim`},
	} {
		code, stdout, stderr := runCmd(t, "", tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %d bytes; want exit 2 and one line with %q", tc.args, code, stderr, len(stdout), tc.want)
		}
	}
}

// TestMatchHelp: -h shows the common flags and points to -h all, which
// shows every flag.
func TestMatchHelp(t *testing.T) {
	_, short, _ := runCmd(t, "", "match", "-h")
	_, all, _ := runCmd(t, "", "help", "match", "all")
	for _, f := range matchCommon {
		if !strings.Contains(short, "  -"+f+" ") && !strings.Contains(short, "  -"+f+"\n") {
			t.Errorf("match -h lacks -%s", f)
		}
	}
	if strings.Contains(short, "-complete-angle") || !strings.Contains(short, "clearmatch match -h all") {
		t.Errorf("match -h shows tuning flags or no pointer to them:\n%s", short)
	}
	if !strings.Contains(all, "-complete-angle") || !strings.Contains(all, "-max-dim") {
		t.Errorf("match -h all lacks flags:\n%s", all)
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runCmd(t, "", "version")
	if code != 0 || !strings.HasPrefix(stdout, "clearmatch ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("exit %d, %q", code, stdout)
	}
}

// TestParseIntrinsics: fx,fy,cx,cy inline, or a file of four numbers or
// a 3×3 K; anything else is a usage error naming the value or file.
func TestParseIntrinsics(t *testing.T) {
	dir := t.TempDir()
	file := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	want := geom.Intrinsics{Fx: 2905.88, Fy: 2905.88, Cx: 1416, Cy: 1064}
	for _, tc := range []struct {
		in      string
		want    geom.Intrinsics
		wantErr string
	}{
		{"2905.88,2905.88,1416,1064", want, ""},
		{file("K.txt", "2905.88 0 1416 \n0 2905.88 1064\n0 0 1"), want, ""},
		{file("K2.txt", "[5811.76, 0, 2832; 0, 5811.76, 2128; 0, 0, 2]"), want, ""},
		{file("four.txt", "2905.88 2905.88 1416 1064\n"), want, ""},
		{file("skew.txt", "1000 3 500\n0 1000 400\n0 0 1"), geom.Intrinsics{}, "K has skew 3"},
		{file("notk.txt", "1000 0 500\n0 1000 400\n1 0 1"), geom.Intrinsics{}, "not a camera matrix K"},
		{file("five.txt", "1 2 3 4 5"), geom.Intrinsics{}, "5 numbers"},
		{file("word.txt", "1000 0 abc\n0 1000 400\n0 0 1"), geom.Intrinsics{}, `"abc" is not a number`},
		{"1000,0,500,400", geom.Intrinsics{}, "0 is not a valid fy"},
		{filepath.Join(dir, "missing.txt"), geom.Intrinsics{}, "want fx,fy,cx,cy or a file"},
		{dir, geom.Intrinsics{}, "not a text file"},
		{"/dev/zero", geom.Intrinsics{}, "not a text file"},
	} {
		got, err := parseIntrinsics(tc.in)
		switch {
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want %q", tc.in, err, tc.wantErr)
		case tc.wantErr == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}

// TestCacheCommand: cache reports a missing folder, then sizes, then
// removes it with -clean.
func TestCacheCommand(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "c")
	if code, stdout, _ := runCmd(t, "", "cache", "-dir", dir); code != 0 || !strings.Contains(stdout, "no cache yet") {
		t.Errorf("missing: exit %d, %q", code, stdout)
	}
	os.MkdirAll(filepath.Join(dir, "pairs", "ab"), 0o755)
	os.WriteFile(filepath.Join(dir, "x.feat"), make([]byte, 1500), 0o644)
	os.WriteFile(filepath.Join(dir, "pairs", "ab", "y.pair"), make([]byte, 500), 0o644)
	if code, stdout, _ := runCmd(t, "", "cache", "-dir", dir); code != 0 || !strings.Contains(stdout, "2.0 kB in all (features 1.5 kB in 1 file, pairs/ 500 B in 1 file)") {
		t.Errorf("sizes: exit %d, %q", code, stdout)
	}
	// A folder that holds anything else is not a cache: -clean refuses it.
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "thesis.tex"), []byte("x"), 0o644)
	if code, _, stderr := runCmd(t, "", "cache", "-dir", other, "-clean"); code != 1 || !strings.Contains(stderr, "not a clearmatch cache, left alone") {
		t.Errorf("foreign folder: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(other, "thesis.tex")); err != nil {
		t.Errorf("-clean removed a foreign file: %v", err)
	}
	if code, stdout, _ := runCmd(t, "", "cache", "-dir", dir, "-clean"); code != 0 || !strings.Contains(stdout, "removed") {
		t.Errorf("clean: exit %d, %q", code, stdout)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("-clean left %s", dir)
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 20965: "20,965", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := count(n); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestDemoRerun: demo replaces a folder holding an earlier demo's output
// without -force, and never a folder of the user's that merely looks alike
// (photos in images/).
func TestDemoRerun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo")
	}
	user := filepath.Join(t.TempDir(), "scene")
	os.MkdirAll(filepath.Join(user, "images"), 0o755)
	os.WriteFile(filepath.Join(user, "images", "photo.jpg"), []byte("x"), 0o644)
	if code, _, stderr := runCmd(t, "", "demo", "-out", user); code != 2 || !strings.Contains(stderr, "not empty") {
		t.Errorf("user folder: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(user, "images", "photo.jpg")); err != nil {
		t.Errorf("demo touched the user's folder: %v", err)
	}
	earlier := filepath.Join(t.TempDir(), "demo-out")
	os.MkdirAll(filepath.Join(earlier, "images"), 0o755)
	os.WriteFile(filepath.Join(earlier, "report.json"), []byte(`{"dataset": "demo"}`), 0o644)
	if code, stdout, stderr := runCmd(t, "", "demo", "-out", earlier); code != 0 || !strings.Contains(stdout, "output: "+earlier) {
		t.Errorf("rerun: exit %d, %s", code, stderr)
	}
}
