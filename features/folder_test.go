package features

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImageFilesFollowsLinks: a symbolic link to an image is an image; a
// dangling one is listed (so that reading it fails with its name); links
// to folders and folders named like images are not.
func TestImageFilesFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "real.png"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "a.png"), []byte("x"), 0o644)
	os.Symlink(filepath.Join(other, "real.png"), filepath.Join(dir, "b.png"))
	os.Symlink(filepath.Join(other, "gone.png"), filepath.Join(dir, "c.png"))
	os.Symlink(other, filepath.Join(dir, "d.png"))
	os.Mkdir(filepath.Join(dir, "e.png"), 0o755)
	files, err := ImageFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := baseNames(files); got != "a.png b.png c.png" {
		t.Errorf("ImageFiles: %q, want a.png b.png c.png", got)
	}
}

// baseNames joins the files' base names with spaces.
func baseNames(files []string) string {
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	return strings.Join(names, " ")
}
