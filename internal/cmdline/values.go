package cmdline

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

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

// SetOf is the set of names, for OneOf.
func SetOf(names []string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
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
