package cmdline

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/clearmatch/clearmatch/compare"
	"github.com/clearmatch/clearmatch/features"
)

// Count writes n with thousands separators: 20,965.
func Count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Plural writes "1 camera" or "3 cameras".
func Plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return Count(n) + " " + one + "s"
}

// ReadSmallFile reads a regular file of at most limit bytes.
func ReadSmallFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, fmt.Errorf("%s: not a text file of at most %d bytes", path, limit)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// Finite reports whether x is a number and not infinite.
func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// OneOf maps a flag's value through its table of choices.
func OneOf[T any](flagName, value string, choices map[string]T) (T, error) {
	if v, ok := choices[value]; ok {
		return v, nil
	}
	names := make([]string, 0, len(choices))
	for k := range choices {
		names = append(names, k)
	}
	sort.Strings(names)
	var zero T
	return zero, Usagef("%s %q: want one of %s", flagName, value, strings.Join(names, ", "))
}

// AddFigures adds each figure to files as NAME.png and NAME.svg.
func AddFigures(files map[string][]byte, figs []compare.Figure) {
	for _, f := range figs {
		files[f.Name+".png"] = f.PNG
		files[f.Name+".svg"] = f.SVG
	}
}

// DefaultDataDir is the datasets folder: $CLEARMATCH_DATA, or
// ../shared/datasets.
func DefaultDataDir() string {
	if d := os.Getenv("CLEARMATCH_DATA"); d != "" {
		return d
	}
	return filepath.Join("..", "shared", "datasets")
}

// ParseBytes reads a size such as 512MiB, 4GiB, 2GB or 1000000 (bytes).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		m      int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.m
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || v*float64(mult) > math.MaxInt64/2 {
		return 0, errors.New("want a size such as 512MiB or 4GiB")
	}
	return int64(v * float64(mult)), nil
}

// QuoteList quotes names for a one-line message, the first few of many.
func QuoteList(names []string) string {
	const most = 5
	q := make([]string, 0, most+1)
	for i, n := range names {
		if i == most {
			q = append(q, fmt.Sprintf("and %d more", len(names)-most))
			break
		}
		q = append(q, strconv.Quote(n))
	}
	return strings.Join(q, ", ")
}

// NeedOpenCV fails at once in a binary built without cgo.
func NeedOpenCV() error {
	if !features.OpenCV {
		return features.ErrNoOpenCV
	}
	return nil
}

// SetOf is the set of names, for OneOf.
func SetOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
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
