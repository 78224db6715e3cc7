package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadStrechaCameras: a camera file gives the pose (R world to
// camera, the transpose of the file's), centre, K and size; a short,
// non-finite or non-rotation file is a one-line error naming it.
func TestReadStrechaCameras(t *testing.T) {
	dir := t.TempDir()
	r := [3][3]float64{{0, -1, 0}, {1, 0, 0}, {0, 0, 1}} // camera to world, as Strecha writes it
	write := func(name, body string) { os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644) }
	var b strings.Builder
	b.WriteString("2759.48 0 1520.69\n0 2764.16 1006.81\n0 0 1\n0 0 0\n")
	for i := 0; i < 3; i++ {
		fmt.Fprintf(&b, "%.17g %.17g %.17g\n", r[i][0], r[i][1], r[i][2])
	}
	b.WriteString("-7.28137 -7.57667 0.204446\n3072 2048\n")
	write("0000.jpg.camera", b.String())
	write("notes.txt", "not a camera")
	cams, err := ReadStrechaCameras(dir)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := cams["0000.jpg"]
	if len(cams) != 1 || !ok || c.C != [3]float64{-7.28137, -7.57667, 0.204446} || c.R != [3][3]float64{{0, 1, 0}, {-1, 0, 0}, {0, 0, 1}} {
		t.Errorf("read %+v", cams)
	}
	for name, body := range map[string]string{
		"short.jpg.camera":  "1 2 3",
		"nan.jpg.camera":    strings.Replace(b.String(), "3072", "NaN", 1),
		"notrot.jpg.camera": "1 0 0\n0 1 0\n0 0 1\n0 0 0\n2 0 0\n0 1 0\n0 0 1\n0 0 0\n10 10\n",
	} {
		d := t.TempDir()
		os.WriteFile(filepath.Join(d, name), []byte(body), 0o644)
		_, err := ReadStrechaCameras(d)
		if err == nil || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "\n") || name == "notrot.jpg.camera" && !strings.Contains(err.Error(), "not a rotation") {
			t.Errorf("%s: %v, want a one-line error naming it", name, err)
		}
	}
	if _, err := ReadStrechaCameras(t.TempDir()); err == nil {
		t.Error("an empty folder gave no error")
	}
}
