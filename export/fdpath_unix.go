//go:build unix

package export

import (
	"fmt"
	"os"
	"syscall"
)

// writeFD writes data to this process's open descriptor fd through a
// duplicate of it, so the write lands where the shell pointed the
// descriptor (at its current offset, in append mode if it was opened so)
// and the descriptor itself stays open.
func writeFD(path string, fd int, data []byte) error {
	d, err := syscall.Dup(fd)
	if err != nil {
		return fmt.Errorf("writing %s: descriptor %d: %w", path, fd, err)
	}
	return writeAndClose(path, os.NewFile(uintptr(d), path), data)
}
