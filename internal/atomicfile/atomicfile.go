// Package atomicfile writes a file so that a reader sees the old content
// or the new, never a part: the caches and clearmatch-beam's job folder
// are read by other processes while they are written.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Write writes data to path through a temporary file in the same folder
// (named ".tmp-" and path's base, so cache listings can tell it), then
// renames it over path. It creates the folder if needed; on an error it
// leaves no temporary file.
func Write(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
