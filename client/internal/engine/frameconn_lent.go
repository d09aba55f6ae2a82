// This file holds what an idle link's reading costs: a frameConn over a
// socket waits for bytes without a buffer and borrows one from
// lentBuffers once they arrive, giving it back once gorilla has read them,
// so that thousands of idle links in one process (a simulated fleet) hold
// no read buffer each.

package engine

import (
	"io"
	"net"
	"sync"
	"syscall"
)

// gorillaReadBuffer is the size of gorilla/websocket's own read buffer
// over a frameConn, which buffers the socket already.
const gorillaReadBuffer = 256

// lentBuffers are the frameConns' read buffers, lent while bytes wait.
var lentBuffers = sync.Pool{New: func() any { b := make([]byte, frameConnBuffer); return &b }}

// newFrameConn returns a frameConn of c; one over a socket borrows its
// buffer only while bytes wait in it.
func newFrameConn(c net.Conn) *frameConn {
	f := &frameConn{Conn: c}
	if sc, ok := c.(syscall.Conn); ok && canLend {
		if rc, err := sc.SyscallConn(); err == nil {
			f.rc = rc
			f.lentRead = f.readLent // made once: a read allocates nothing
			return f
		}
	}
	f.buf = make([]byte, frameConnBuffer)
	return f
}

// giveBack returns a lent buffer that holds nothing unread.
func (f *frameConn) giveBack() {
	if f.rc == nil || f.buf == nil || f.r < f.w {
		return
	}
	if f.lent != nil && cap(f.buf) == frameConnBuffer {
		lentBuffers.Put(f.lent)
	}
	f.buf, f.lent, f.r, f.w = nil, nil, 0, 0
}

// readLent is lentFill's read, called by the socket's RawConn with its
// descriptor: false (wait) while the socket has nothing.
func (f *frameConn) readLent(fd uintptr) bool {
	buf := lentBuffers.Get().(*[]byte)
	f.lentN, f.lentErr = readFD(fd, *buf)
	if f.lentErr == syscall.EAGAIN {
		lentBuffers.Put(buf)
		return false
	}
	if f.lentErr == nil && f.lentN > 0 {
		f.lent, f.buf, f.r, f.w = buf, *buf, 0, f.lentN
	} else {
		lentBuffers.Put(buf)
	}
	return true
}

// lentFill is fill for an empty frameConn over a socket: it waits for the
// socket to have bytes, then reads them into a lent buffer.
func (f *frameConn) lentFill() error {
	f.lentN, f.lentErr = 0, nil
	err := f.rc.Read(f.lentRead)
	n, rerr := f.lentN, f.lentErr
	if err == nil && rerr != nil {
		err = &net.OpError{Op: "read", Net: "tcp", Err: rerr}
	}
	if err == nil && n <= 0 {
		err = io.EOF
	}
	if err != nil {
		if isTimeout(err) {
			f.stale.Store(true)
		}
		return err
	}
	f.scan.feed(f.buf[:n])
	f.touch()
	return nil
}
