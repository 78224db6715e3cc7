package localmap

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Fix is a position measured apart from the odometry at time T (s): a
// GPS fix, or a simulated run's true position. Its frame is its own.
type Fix struct{ T, X, Y float64 }

// ReferenceFiles are the names a log folder's reference positions go by,
// in the order fuse looks for them.
var ReferenceFiles = []string{"gps.csv", "gps.txt", "gps.dat"}

// ReadReference reads reference positions: time, x, y per line (metres,
// any local frame; further columns ignored), separated as ReadLog's files.
// Times must not decrease; errors name the file and line.
func ReadReference(path string) ([]Fix, error) {
	var out []Fix
	err := readLines(path, 3, nil, func(_ int, f []string) error {
		v, err := numbers(f[:3])
		if err != nil {
			return err
		}
		if math.Abs(v[1]) > MaxCoordinate || math.Abs(v[2]) > MaxCoordinate {
			return fmt.Errorf("position %g, %g beyond ±%g m", v[1], v[2], MaxCoordinate)
		}
		if n := len(out); n > 0 && v[0] < out[n-1].T {
			return fmt.Errorf("time %g before the previous line's %g", v[0], out[n-1].T)
		}
		out = append(out, Fix{T: v[0], X: v[1], Y: v[2]})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no position", path)
	}
	return out, nil
}

// formatReference is fixes in ReadReference's format, with a header.
func formatReference(fixes []Fix) []byte {
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	var b strings.Builder
	b.WriteString("time,x,y\n")
	for _, p := range fixes {
		b.WriteString(f(p.T) + "," + f(p.X) + "," + f(p.Y) + "\n")
	}
	return []byte(b.String())
}
