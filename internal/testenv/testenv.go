// Package testenv locates the project's shared test data and applies the
// one policy for missing data: tests skip outside CI and fail under CI
// (when the CI variable is set).
package testenv

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// SharedDir is $CLEARMATCH_SHARED, or the shared folder beside the
// repository.
func SharedDir() string {
	if d := os.Getenv("CLEARMATCH_SHARED"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0) // …/internal/testenv/testenv.go
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
}

// DataDir is $CLEARMATCH_DATA, or SharedDir()/datasets.
func DataDir() string {
	if d := os.Getenv("CLEARMATCH_DATA"); d != "" {
		return d
	}
	return filepath.Join(SharedDir(), "datasets")
}

// Missing reports that shared data could not be read: the test is skipped,
// or fails under CI.
func Missing(tb testing.TB, err error) {
	tb.Helper()
	if os.Getenv("CI") != "" {
		tb.Fatalf("shared test data missing under CI: %v", err)
	}
	tb.Skipf("shared test data missing: %v", err)
}

// Require returns path when it exists, and otherwise calls Missing.
func Require(tb testing.TB, path string) string {
	tb.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(tb, err)
	}
	return path
}
