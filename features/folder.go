package features

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// imageExts are the file endings ImageFiles lists: what OpenCV 4.6 reads.
var imageExts = map[string]bool{
	".png": true, ".jpg": true, ".jpeg": true, ".jpe": true, ".ppm": true, ".pgm": true, ".pbm": true,
	".pnm": true, ".tif": true, ".tiff": true, ".bmp": true, ".dib": true, ".webp": true,
}

// ImageFiles lists the image files of dir (by ending, case-insensitive),
// sorted by name, so the order of views is deterministic. Symbolic links
// to files count; dangling ones are listed too, so that reading them fails
// with their name.
func ImageFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if !imageExts[strings.ToLower(filepath.Ext(e.Name()))] {
			continue
		}
		p := filepath.Join(dir, e.Name())
		regular := e.Type().IsRegular()
		if e.Type()&os.ModeSymlink != 0 {
			// A linked image is an image; a dangling link is listed so that
			// its error is reported, not silently dropped.
			fi, err := os.Stat(p)
			regular = err != nil || fi.Mode().IsRegular()
		}
		if regular {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}

// ErrTooFewImages reports fewer than two usable images.
var ErrTooFewImages = errors.New("fewer than two usable images")

// ImageExtensions lists the endings ImageFiles takes, for messages:
// ".bmp, .dib, .jpe, …".
func ImageExtensions() string {
	exts := make([]string, 0, len(imageExts))
	for e := range imageExts {
		exts = append(exts, e)
	}
	sort.Strings(exts)
	return strings.Join(exts, ", ")
}
