//go:build unix

package router

import (
	"net"
	"os"
	"syscall"
)

// init makes lr read c, waiting on its descriptor when c is a socket,
// else reading it directly.
func (lr *lentReader) init(c net.Conn) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return
	}
	lr.rc, lr.readFn = rc, lr.readLent
}

// rawRead waits until the socket has bytes and reads them into a lent
// buffer, which lr then holds; 0 bytes and no error at the end of the
// stream.
func (lr *lentReader) rawRead() (int, error) {
	lr.n, lr.err = 0, nil
	if err := lr.rc.Read(lr.readFn); err != nil {
		return 0, err
	}
	if lr.err != nil {
		return 0, &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", lr.err)}
	}
	return max(lr.n, 0), nil
}

// readLent is rawRead's read, called by the socket's RawConn with its
// descriptor: false (wait) while the socket has nothing.
func (lr *lentReader) readLent(fd uintptr) bool {
	buf := lentBuffers.Get().(*[]byte)
	for {
		lr.n, lr.err = syscall.Read(int(fd), *buf)
		if lr.err != syscall.EINTR {
			break
		}
	}
	if lr.err == syscall.EAGAIN {
		lentBuffers.Put(buf)
		return false
	}
	if lr.err == nil && lr.n > 0 {
		lr.buf, lr.r, lr.w = buf, 0, lr.n
	} else {
		lentBuffers.Put(buf)
	}
	return true
}
