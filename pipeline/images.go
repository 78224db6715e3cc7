package pipeline

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/clearmatch/clearmatch/features"
)

// Image is one input image that was used.
type Image struct {
	Name string // unique name (the file's base name)
	Path string // the file ("" for feature sets given to Match)
}

// Skipped is an input image that could not be used.
type Skipped struct {
	Name string
	Err  error
}

// Message says why the image was skipped, naming it once: decoding errors
// name the file already.
func (s Skipped) Message() string {
	if msg := s.Err.Error(); strings.HasPrefix(msg, s.Name+":") {
		return msg
	}
	return s.Name + ": " + s.Err.Error()
}

// ErrTooFewImages reports fewer than two usable images.
var ErrTooFewImages = features.ErrTooFewImages

// Images expands the inputs (folders, whose image files are taken sorted
// by name, and single files) into paths and unique names (base names).
func Images(inputs []string) ([]Image, error) {
	seen := map[string]string{}
	var out []Image
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: no such folder or image", in)
		}
		if err != nil {
			return nil, err
		}
		ps := []string{in}
		if fi.IsDir() {
			if ps, err = features.ImageFiles(in); err != nil {
				return nil, err
			}
			if len(ps) == 0 {
				return nil, emptyFolder(in)
			}
		}
		for _, p := range ps {
			n := filepath.Base(p)
			if prev, ok := seen[n]; ok {
				return nil, fmt.Errorf("two images are named %s (%s and %s)", n, prev, p)
			}
			seen[n] = p
			out = append(out, Image{Name: n, Path: p})
		}
	}
	return out, nil
}

// emptyFolder says what to do about a folder that holds no image: name
// the subfolder that does (a COLMAP-style scene keeps them in images/).
func emptyFolder(dir string) error {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		sub := filepath.Join(dir, e.Name())
		if fi, err := os.Stat(sub); err != nil || !fi.IsDir() {
			continue
		}
		if ps, err := features.ImageFiles(sub); err == nil && len(ps) > 0 {
			return fmt.Errorf("%s holds no images, but its subfolder %s holds %d: give that folder", dir, sub, len(ps))
		}
	}
	return fmt.Errorf("%s holds no images (clearmatch reads the %s files directly inside a folder)", dir, features.ImageExtensions())
}

// Names returns the images' names.
func Names(images []Image) []string {
	out := make([]string, len(images))
	for i, im := range images {
		out[i] = im.Name
	}
	return out
}

// Paths returns the images' paths.
func Paths(images []Image) []string {
	out := make([]string, len(images))
	for i, im := range images {
		out[i] = im.Path
	}
	return out
}
