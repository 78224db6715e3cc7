package terminal

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestIs(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	for _, tc := range []struct {
		name string
		w    io.Writer
	}{{"a buffer", &bytes.Buffer{}}, {"a file", f}, {"a pipe", w}, {"nil", nil}} {
		if Is(tc.w) {
			t.Errorf("%s is taken for a terminal", tc.name)
		}
	}
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		if !Is(tty) {
			t.Error("/dev/tty is not taken for a terminal")
		}
	}
}
