package features

import (
	"errors"
	"fmt"
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

// Usable keeps the images that were extracted. With strict, the first
// error is returned; otherwise failed images are skipped and their errors
// returned as warnings. Fewer than two usable images is an error either
// way. An image with no features is usable (it has zero observations).
func Usable(sets []*Set, errs []error, strict bool) (kept []*Set, skipped []error, err error) {
	for i, s := range sets {
		if errs[i] != nil {
			if strict {
				return nil, nil, errs[i]
			}
			skipped = append(skipped, errs[i])
			continue
		}
		kept = append(kept, s)
	}
	if len(kept) < 2 {
		return nil, skipped, fmt.Errorf("%w (%d of %d)", ErrTooFewImages, len(kept), len(sets))
	}
	return kept, skipped, nil
}
