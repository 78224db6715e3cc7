//go:build cgo && matprofile

package features

import (
	"fmt"
	"os"
	"testing"

	"gocv.io/x/gocv"
)

// TestMain fails the run when any gocv Mat is still open after the tests
// (go test -tags matprofile ./features/).
func TestMain(m *testing.M) {
	code := m.Run()
	if n := gocv.MatProfile.Count(); n != 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "features: %d gocv Mats were not closed\n", n)
		var b bytesWriter
		gocv.MatProfile.WriteTo(&b, 1)
		fmt.Fprint(os.Stderr, string(b))
		code = 1
	}
	os.Exit(code)
}

type bytesWriter []byte

func (b *bytesWriter) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
