package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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

func TestVersion(t *testing.T) {
	code, stdout, _ := runCmd(t, "", "version")
	if code != 0 || !strings.HasPrefix(stdout, "clearmatch ") || !strings.Contains(stdout, "go1.") {
		t.Errorf("exit %d, %q", code, stdout)
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
