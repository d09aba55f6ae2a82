//go:build unix

package engine

import (
	"os"
	"syscall"
)

// canLend says a frameConn over a socket can wait without a buffer.
const canLend = true

// readFD reads the non-blocking socket fd into b once, retrying when a
// signal interrupts it; syscall.EAGAIN when nothing waits.
func readFD(fd uintptr, b []byte) (int, error) {
	for {
		n, err := syscall.Read(int(fd), b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil && err != syscall.EAGAIN {
			return n, os.NewSyscallError("read", err)
		}
		return n, err
	}
}
