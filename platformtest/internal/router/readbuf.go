// This file holds the read side of an idle link's memory: the socket is
// read into a buffer the link borrows only while received bytes wait in
// it (lentReader), so that a link waiting for its next message holds no
// read buffer but gorilla/websocket's small one (readBufferSize). The
// reader hands gorilla no byte past the end of the frame it is in, so that
// once gorilla has returned a message it holds nothing unread, and the
// link's reader can wait for the next message on a short stack (wait)
// rather than deep inside gorilla: an idle link's goroutine then keeps a
// smaller stack.

package router

import (
	"io"
	"net"
	"sync"
	"syscall"

	"github.com/flockgo/ironflock/internal/wsframe"
)

const (
	// lentBufferSize is the size of the buffers a link borrows to read
	// its socket: what one read takes at most.
	lentBufferSize = 4 << 10
	// readBufferSize is the size of gorilla/websocket's own read buffer of
	// a link (frame headers, small messages); it reads the lent buffer.
	readBufferSize = 256
)

// lentBuffers are the links' lent read buffers.
var lentBuffers = sync.Pool{New: func() any { b := make([]byte, lentBufferSize); return &b }}

// lentReader reads a socket through a buffer borrowed from lentBuffers
// once the socket has bytes, given back once they are read. One reader at
// a time.
type lentReader struct {
	rc    syscall.RawConn // nil: the connection offers none, read it directly
	buf   *[]byte         // nil while nothing waits
	r, w  int             // (*buf)[r:w] waits
	frame frameBound      // where the frame the bytes handed out are in ends
	// readFn is readLent (unix), made once by init so that a read
	// allocates nothing; n and err are its outcome.
	readFn func(fd uintptr) bool
	n      int
	err    error
}

// read reads into b from what waits, else from the socket: straight into
// b when b is as large as a lent buffer, else into a lent buffer once the
// socket has bytes.
func (lr *lentReader) read(c net.Conn, b []byte) (int, error) {
	if len(b) == 0 {
		return c.Read(b)
	}
	b = b[:min(len(b), lr.frame.room())]
	if lr.buf != nil {
		n := copy(b, (*lr.buf)[lr.r:lr.w])
		lr.frame.pass(b[:n])
		lr.r += n
		if lr.r == lr.w {
			lentBuffers.Put(lr.buf)
			lr.buf = nil
		}
		return n, nil
	}
	if lr.rc == nil || len(b) >= lentBufferSize {
		n, err := c.Read(b)
		lr.frame.pass(b[:max(n, 0)])
		return n, err
	}
	n, err := lr.rawRead()
	if err != nil || n == 0 {
		if err == nil {
			err = io.EOF
		}
		return 0, err
	}
	return lr.read(c, b)
}

// wait waits, on the caller's short stack, until the socket has bytes when
// none wait here and the bytes handed out ended a frame (gorilla then
// holds none unread); a failed read is left for the next read to meet.
func (lr *lentReader) wait() {
	if lr.rc == nil || lr.buf != nil || !lr.frame.atStart() {
		return
	}
	_, _ = lr.rawRead()
}

// frameBound follows the WebSocket frames (RFC 6455 §5.2) of the bytes a
// lentReader hands out, by their headers, to know where the current frame
// ends.
type frameBound struct {
	hdr     [wsframe.MaxHeader]byte
	nh      int    // header bytes passed
	payload uint64 // payload bytes of the current frame still to pass
	inBody  bool
}

// atStart reports whether the next byte begins a frame.
func (f *frameBound) atStart() bool { return f.nh == 0 && !f.inBody }

// room returns how many bytes may pass before the end of the current
// frame's header or payload.
func (f *frameBound) room() int {
	if f.inBody {
		return int(min(f.payload, uint64(maxInt)))
	}
	if f.nh < 2 {
		return 2 - f.nh
	}
	return wsframe.HeaderLen(f.hdr[1]) - f.nh
}

// maxInt is the largest int.
const maxInt = int(^uint(0) >> 1)

// pass follows p, which room allowed, through the frame.
func (f *frameBound) pass(p []byte) {
	for len(p) > 0 {
		if f.inBody {
			n := min(uint64(len(p)), f.payload)
			f.payload -= n
			p = p[n:]
			if f.payload == 0 {
				f.inBody = false
			}
			continue
		}
		f.hdr[f.nh] = p[0]
		f.nh++
		p = p[1:]
		if f.nh < 2 || f.nh < wsframe.HeaderLen(f.hdr[1]) {
			continue
		}
		f.payload = wsframe.PayloadLen(&f.hdr)
		f.nh, f.inBody = 0, f.payload > 0
	}
}

// inBuffers hold one inbound message each while a link decodes and routes
// it: a link keeps none between messages, and a message no longer costs
// the garbage of its own buffer (gorilla's ReadMessage reads each into a
// new one).
var inBuffers = sync.Pool{New: func() any { b := make([]byte, 0, inBufferSize); return &b }}

const (
	// inBufferSize is an inbound buffer's first size: most messages fit.
	inBufferSize = 1 << 10
	// inBufferKept is the largest buffer inBuffers keeps; one grown past
	// it for a large message is left to the collector.
	inBufferKept = 64 << 10
)

// putInBuffer gives buf back to inBuffers.
func putInBuffer(buf *[]byte) {
	if cap(*buf) <= inBufferKept {
		*buf = (*buf)[:0]
		inBuffers.Put(buf)
	}
}

// nextMessage reads the next message of the link into *buf (grown as
// needed, kept in *buf) and returns it.
func (w *wsPeer) nextMessage(buf *[]byte) ([]byte, error) {
	_, r, err := w.conn.NextReader()
	if err != nil {
		return nil, err
	}
	b := (*buf)[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		*buf = b
		switch {
		case err == io.EOF:
			return b, nil
		case err != nil:
			return nil, err
		}
	}
}
