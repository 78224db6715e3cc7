package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, path, data string
		fails            bool
	}{
		{"a new file in a new folder", "a/b/file", "one", false},
		{"over the old content", "a/b/file", "two", false},
		{"over a folder", "a/b", "x", true},
	} {
		path := filepath.Join(dir, c.path)
		err := Write(path, []byte(c.data))
		if (err != nil) != c.fails {
			t.Fatalf("%s: error %v", c.name, err)
		}
		if !c.fails {
			if b, err := os.ReadFile(path); err != nil || string(b) != c.data {
				t.Errorf("%s: reads %q (%v), want %q", c.name, b, err, c.data)
			}
		}
		left, _ := filepath.Glob(filepath.Join(dir, "a", ".tmp-*"))
		more, _ := filepath.Glob(filepath.Join(dir, "a", "b", ".tmp-*"))
		if len(left)+len(more) > 0 {
			t.Errorf("%s: temporary files left: %v %v", c.name, left, more)
		}
	}
}
