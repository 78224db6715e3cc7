package clear

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir is the project's shared folder: $CLEARMATCH_SHARED, or
// ../shared beside the repository (tests run in the package directory).
func sharedDir(tb testing.TB) string {
	if d := os.Getenv("CLEARMATCH_SHARED"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "shared")
}

// missingData skips a test whose shared data is absent, except under CI,
// where missing data is a failure.
func missingData(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("shared test data missing under CI: %v", err)
	}
	tb.Skipf("shared test data missing: %v", err)
}
