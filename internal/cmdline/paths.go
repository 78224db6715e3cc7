package cmdline

import (
	"os"
	"path/filepath"

	"github.com/clearmatch/clearmatch/features"
)

// DefaultDataDir is the datasets folder: $CLEARMATCH_DATA, or
// ../shared/datasets.
func DefaultDataDir() string {
	if d := os.Getenv("CLEARMATCH_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "datasets")
}

// DefaultCacheDir is match's -cache default ("" when the system has no
// cache folder).
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "clearmatch", "features")
}

// NeedOpenCV fails at once in a binary built without cgo.
func NeedOpenCV() error {
	if !features.OpenCV {
		return features.ErrNoOpenCV
	}
	return nil
}
