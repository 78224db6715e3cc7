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
// sorted by name, so the order of views is deterministic.
func ImageFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if e.Type().IsRegular() && imageExts[strings.ToLower(filepath.Ext(e.Name()))] {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}

// ErrTooFewImages reports fewer than two usable images.
var ErrTooFewImages = errors.New("fewer than two usable images")
