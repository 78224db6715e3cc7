// Package terminal tells whether progress goes to a person's terminal, where
// a counter may be rewritten in place, or to a file or a pipe, where it must
// be plain lines.
package terminal

import (
	"io"
	"os"
	"time"
)

// LogInterval is how often progress writes a plain line to a file or a
// pipe: often enough to show a run is alive, rarely enough for a log.
const LogInterval = 5 * time.Second

// Is reports whether w is a terminal: an *os.File on a character device.
func Is(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
