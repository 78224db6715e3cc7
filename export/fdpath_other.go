//go:build !unix

package export

import "fmt"

func writeFD(path string, fd int, data []byte) error {
	return fmt.Errorf("writing %s: writing to an open descriptor is not supported on this system", path)
}
