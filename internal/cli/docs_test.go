package cli

import (
	"bufio"
	"errors"
	"image"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/draw"

	"github.com/clearmatch/clearmatch/imagefile"
	"github.com/clearmatch/clearmatch/internal/testenv"
)

// TestReadmeQuickstart runs the README's quickstart block verbatim in a
// shell, with the test's clearmatch on PATH and PHOTOS a folder of the
// sceaux-castle photos made 640 px wide, and requires the COLMAP model it
// promises: run/sparse/0 with every photo registered.
func TestReadmeQuickstart(t *testing.T) {
	if testing.Short() {
		t.Skip("runs clearmatch and colmap mapper on 11 photos")
	}
	block := quickstartBlock(t)
	src := testenv.Require(t, filepath.Join(dataDirForTest(t), "sceaux-castle"))
	colmap := colmapRunner(t) // skips (or fails under CI) without COLMAP
	bin := buildBinary(t)
	photos := filepath.Join(t.TempDir(), "photos")
	n := shrinkPhotos(t, src, photos, 640)
	work := t.TempDir()
	cmd := exec.Command("bash", "-euo", "pipefail", "-c", block)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PHOTOS="+photos, "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"QT_QPA_PLATFORM=offscreen", "XDG_CACHE_HOME="+filepath.Join(work, "cache"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the quickstart failed: %v\n%s\n%s", err, block, tail(string(out), 3000))
	}
	stats := colmap("model_analyzer", "--path", filepath.Join(work, "run", "sparse", "0"))
	if reg := int(analyzerStat(t, stats, "Registered images")); reg != n {
		t.Errorf("the quickstart's model registered %d of %d photos", reg, n)
	}
}

// quickstartBlock returns the sh block that follows the README's
// "quickstart" marker.
func quickstartBlock(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	i := strings.Index(s, "<!-- quickstart")
	if i < 0 {
		t.Fatal("README.md has no <!-- quickstart --> marker")
	}
	s = s[i:]
	start := strings.Index(s, "```sh\n")
	if start < 0 {
		t.Fatal("no sh block after the quickstart marker")
	}
	s = s[start+len("```sh\n"):]
	end := strings.Index(s, "```")
	if end < 0 {
		t.Fatal("the quickstart block is not closed")
	}
	return s[:end]
}

// shrinkPhotos writes src's JPEG photos into dst, width at most w (the
// README's commands run at their defaults; full-size photos would cost
// the suite a minute).
func shrinkPhotos(t *testing.T, src, dst string, w int) int {
	t.Helper()
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	es, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range es {
		if !strings.EqualFold(filepath.Ext(e.Name()), ".jpg") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		img, err := imagefile.Decode(e.Name(), data, 0)
		if err != nil {
			t.Fatal(err)
		}
		b := img.Bounds()
		h := b.Dy() * w / b.Dx()
		small := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.ApproxBiLinear.Scale(small, small.Bounds(), img, b, draw.Src, nil)
		f, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := jpeg.Encode(f, small, &jpeg.Options{Quality: 95}); err != nil {
			t.Fatal(err)
		}
		f.Close()
		n++
	}
	return n
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestManualCommands reads every clearmatch command line of the README and
// the manual (docs/*.md, inside sh blocks) and checks that its command
// exists and that every flag it gives is one of that command's flags, so
// that a renamed command or flag fails here before it fails a reader.
func TestManualCommands(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "README.md"))
	flagsOf := map[string]string{} // command → its -h all text
	seen := 0
	for _, f := range files {
		for _, c := range shellCommands(t, f) {
			args := strings.Fields(c.line)
			if len(args) < 2 {
				continue
			}
			name := args[1]
			help, ok := flagsOf[name]
			if !ok {
				code, stdout, stderr := runCmd(t, "", name, "-h", "all")
				if code != 0 && name != "help" && name != "version" {
					t.Errorf("%s:%d: clearmatch %s: no such command (%s)", c.file, c.line0, name, strings.TrimSpace(stderr))
					continue
				}
				help, flagsOf[name] = stdout, stdout
			}
			seen++
			for _, a := range args[2:] {
				if !strings.HasPrefix(a, "-") || a == "-" {
					continue
				}
				flag := strings.SplitN(strings.TrimLeft(a, "-"), "=", 2)[0]
				if flag == "h" || flag == "help" {
					continue
				}
				if !strings.Contains(help, "\n  -"+flag+" ") && !strings.Contains(help, "\n  -"+flag+"\n") {
					t.Errorf("%s:%d: clearmatch %s has no flag -%s", c.file, c.line0, name, flag)
				}
			}
		}
	}
	if seen < 10 {
		t.Errorf("found only %d clearmatch command lines in the manual", seen)
	}
}

type shellLine struct {
	file  string
	line0 int
	line  string
}

// shellCommands returns the lines of f's sh blocks that run clearmatch
// (bin/clearmatch too), comments and trailing "# …" removed.
func shellCommands(t *testing.T, f string) []shellLine {
	t.Helper()
	fh, err := os.Open(f)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []shellLine
	in := false
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(l, "```sh"):
			in = true
			continue
		case strings.HasPrefix(l, "```"):
			in = false
			continue
		}
		if !in {
			continue
		}
		if i := strings.Index(l, " #"); i >= 0 {
			l = strings.TrimSpace(l[:i])
		}
		l = strings.TrimPrefix(l, "bin/")
		if strings.HasPrefix(l, "clearmatch ") {
			out = append(out, shellLine{filepath.Base(f), n, l})
		}
	}
	return out
}
