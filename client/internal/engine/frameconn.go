// This file holds frameConn, the network connection under the link's
// WebSocket: it buffers what the socket delivers and finds the frame
// boundaries in it, so that the reader knows whether a whole message is
// waiting before it calls into gorilla/websocket, and can wait for one in
// a way a read deadline interrupts without breaking the connection.
//
// gorilla/websocket remembers any read error for good, a timeout included,
// so a goroutine blocked inside it cannot be called back. The engine lets
// the caller waiting for an answer read the link itself (see leader.go);
// such a caller must be able to leave when its ctx ends. It therefore waits
// for bytes here (fill, which a deadline interrupts) and enters gorilla only
// once a complete message is buffered, when gorilla's read cannot block.
// Only frame headers are looked at: gorilla still parses every frame,
// answers pings and handles close.

package engine

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/wsframe"
)

// frameConn is a net.Conn whose reads go through a buffer the scanner
// has seen. It is used by one reader at a time: the goroutine holding the
// link's reader role (handing the role over synchronises them).
type frameConn struct {
	net.Conn

	// scanning is off during the HTTP handshake (bytes pass through) and on
	// once the WebSocket is up; the router sends nothing before HELLO, so no
	// frame byte passes before it is set.
	scanning bool

	buf  []byte // buf[r:w] came from the socket and was not yet read by gorilla
	r, w int
	// rc, when set, lets fill wait for the socket without a buffer and
	// borrow one from lentBuffers once bytes arrive (frameconn_lent.go):
	// an idle link then holds no read buffer.
	rc       syscall.RawConn
	lentRead func(fd uintptr) bool // readLent, made once
	lent     *[]byte               // the lent buffer buf is, if any
	lentN    int                   // readLent's outcome
	lentErr  error
	scan     frameScanner
	// consumed counts the messages gorilla returned, controls the control
	// frames it handled (the ping and pong handlers count them).
	consumed, controls uint64
	touch              func() // notes incoming traffic

	// deadline is the socket's read deadline as the reader set it last;
	// stale says it may no longer be (interrupt set another) or has passed
	// (a fill ended on it).
	deadline time.Time
	stale    atomic.Bool

	out writeCork // the write side's coalescing (coalesce.go)

	// wdeadline is the socket's write deadline as set last, when wknown,
	// under out.mu.
	wdeadline time.Time
	wknown    bool
}

// SetWriteDeadline passes t on to the socket unless it is already set.
// The link calls it under its write lock (frameout.go); gorilla only when
// it answers a protocol error with a close frame, from the reader, so the
// remembered deadline is kept under the write side's mutex.
func (f *frameConn) SetWriteDeadline(t time.Time) error {
	f.out.mu.Lock()
	defer f.out.mu.Unlock()
	if f.wknown && t.Equal(f.wdeadline) {
		return nil
	}
	err := f.Conn.SetWriteDeadline(t)
	f.wdeadline, f.wknown = t, err == nil
	return err
}

// SetDeadline sets both deadlines; SetWriteDeadline learns of it.
func (f *frameConn) SetDeadline(t time.Time) error {
	f.out.mu.Lock()
	defer f.out.mu.Unlock()
	err := f.Conn.SetDeadline(t)
	f.wdeadline, f.wknown = t, err == nil
	return err
}

// frameConnBuffer is the initial and idle size of the buffer.
const frameConnBuffer = 8 << 10

// aLongTimeAgo is a read deadline in the past: it interrupts a fill.
var aLongTimeAgo = time.Unix(1, 0)

// Read serves gorilla: buffered bytes first; with none, one read from the
// socket (reached only when gorilla needs more than what is buffered, as
// for a control frame followed by nothing yet). A deadline meant to
// interrupt a fill is never passed on to gorilla, which would keep it as
// the connection's error for good.
func (f *frameConn) Read(p []byte) (int, error) {
	if f.r < f.w {
		n := copy(p, f.buf[f.r:f.w])
		f.r += n
		if f.r == f.w {
			f.giveBack()
		}
		return n, nil
	}
	if !f.scanning {
		return f.Conn.Read(p)
	}
	for {
		n, err := f.Conn.Read(p)
		if n > 0 {
			f.scan.feed(p[:n])
			f.touch()
			return n, nil
		}
		if isTimeout(err) {
			f.deadline = time.Time{}
			_ = f.Conn.SetReadDeadline(f.deadline)
			continue
		}
		return n, err
	}
}

// fill reads once from the socket into the buffer. It returns the
// socket's error, a timeout included (a deadline set by interrupt or the
// reader's own): the buffer is intact and fill can be called again.
func (f *frameConn) fill() error {
	if f.r == f.w {
		f.r, f.w = 0, 0
		if f.rc != nil {
			f.giveBack()
			return f.lentFill()
		}
		if cap(f.buf) > 16*frameConnBuffer {
			f.buf = make([]byte, frameConnBuffer)
		}
	}
	if len(f.buf)-f.w < frameConnBuffer/2 {
		if f.r > 0 && f.r >= len(f.buf)/2 {
			f.w = copy(f.buf, f.buf[f.r:f.w])
			f.r = 0
		} else {
			nb := make([]byte, max(2*len(f.buf), f.w-f.r+frameConnBuffer))
			f.w = copy(nb, f.buf[f.r:f.w])
			f.r, f.buf = 0, nb
		}
	}
	n, err := f.Conn.Read(f.buf[f.w:])
	if n > 0 {
		f.scan.feed(f.buf[f.w : f.w+n])
		f.w += n
		f.touch()
		return nil
	}
	if err == nil {
		err = errors.New("empty read")
	}
	if isTimeout(err) {
		// The deadline set last has passed: the next setDeadline sets one.
		f.stale.Store(true)
	}
	return err
}

// setDeadline makes a fill end by want at the latest (zero: no bound). A
// deadline already set that is not later than want is kept: a fill ending
// early is called again, and a caller reading back to back then costs no
// timer update per message. One that has passed is not kept: the fill that
// ended on it, or an interrupt, made it stale.
func (f *frameConn) setDeadline(want time.Time) {
	if !f.stale.Swap(false) {
		if f.deadline.IsZero() {
			if want.IsZero() {
				return
			}
		} else if want.IsZero() || !f.deadline.After(want) {
			return
		}
	}
	f.deadline = want
	_ = f.Conn.SetReadDeadline(want)
}

// interrupt ends a fill at once, from any goroutine.
func (f *frameConn) interrupt() {
	_ = f.Conn.SetReadDeadline(aLongTimeAgo)
	f.stale.Store(true)
}

// ready reports whether a whole message (or a close frame) is buffered and
// not yet read, or, with control, a ping or pong gorilla has not handled.
func (f *frameConn) ready(control bool) bool {
	return f.scan.messages > f.consumed || control && f.scan.controls > f.controls
}

// isTimeout reports whether err is a read deadline passing.
func isTimeout(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// frameScanner follows the WebSocket frames of a byte stream (RFC 6455
// §5.2) by their headers alone and counts those that ended.
type frameScanner struct {
	hdr     [wsframe.MaxHeader]byte
	nh      int    // header bytes collected
	payload uint64 // payload bytes of the current frame still to pass
	inBody  bool
	// messages counts the data frames with FIN (the ends of messages) and
	// close frames, controls the ping and pong frames.
	messages, controls uint64
}

// feed passes p through the scanner.
func (s *frameScanner) feed(p []byte) {
	for len(p) > 0 {
		if s.inBody {
			n := uint64(len(p))
			if n > s.payload {
				n = s.payload
			}
			s.payload -= n
			p = p[n:]
			if s.payload == 0 {
				s.end()
			}
			continue
		}
		s.hdr[s.nh] = p[0]
		s.nh++
		p = p[1:]
		if s.nh < 2 || s.nh < wsframe.HeaderLen(s.hdr[1]) {
			continue
		}
		s.payload = wsframe.PayloadLen(&s.hdr)
		s.inBody = true
		if s.payload == 0 {
			s.end()
		}
	}
}

// end counts the frame just passed and starts the next header.
func (s *frameScanner) end() {
	fin, op := s.hdr[0]&0x80 != 0, s.hdr[0]&0x0f
	switch {
	case op == 8: // close
		s.messages++
	case op >= 8: // ping, pong
		s.controls++
	case fin: // the last frame of a text or binary message
		s.messages++
	}
	s.nh, s.inBody = 0, false
}

// frameDialer sets d up to put a frameConn under the WebSocket of u: over
// TCP for ws, over TLS (done here, so that the frameConn sees plain frames,
// as gorilla would: the default config naming the host) for wss. It leaves
// d alone for wss through a proxy, which gorilla dials itself: that link
// has no frameConn and its reader is the session's goroutine alone. The
// frameConn made is stored in *fc. netDial, when set, opens the TCP
// connection instead of a net.Dialer.
func frameDialer(d *websocket.Dialer, u *url.URL, fc **frameConn, netDial func(context.Context, string, string) (net.Conn, error)) {
	var nd net.Dialer
	if netDial == nil {
		netDial = nd.DialContext
	}
	wrap := func(c net.Conn) net.Conn {
		*fc = newFrameConn(c)
		return *fc
	}
	// gorilla reads the frameConn's buffer: its own can be small.
	d.ReadBufferSize = gorillaReadBuffer
	switch u.Scheme {
	case "ws":
		d.NetDialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := netDial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return wrap(c), nil
		}
	case "wss":
		if d.Proxy != nil {
			if p, err := d.Proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: u.Host}}); err != nil || p != nil {
				return
			}
		}
		d.NetDialTLSContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			raw, err := netDial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			c := tls.Client(raw, &tls.Config{ServerName: host})
			if err := c.HandshakeContext(ctx); err != nil {
				raw.Close()
				return nil, err
			}
			return wrap(c), nil
		}
	}
}
