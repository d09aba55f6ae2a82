// This file holds the link: one WebSocket connection to the router carrying
// WAMP messages (dial, write, read, close) and its keepalive.

package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	neturl "net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
)

// errControl tells a reader that may not block that a ping or pong waits.
var errControl = errors.New("a control frame waits")

// errKeepalive ends a link that stayed silent through a ping.
var errKeepalive = errors.New("no traffic from the router within the keepalive pong timeout")

// link is one WebSocket connection to the router carrying WAMP messages.
// Writes are serialised by a mutex; a single reader reads. Any incoming
// frame (message, ping or pong) counts as proof of life.
type link struct {
	conn         *websocket.Conn
	fc           *frameConn // nil for wss through a proxy: see frameDialer
	raw          net.Conn   // under conn: fc, or the socket; frames are written to it (frameout.go)
	json         bool       // wamp.2.json, else wamp.2.msgpack
	frame        int
	writeTimeout time.Duration

	wmu sync.Mutex
	// queued counts the writers waiting for wmu: while some are, a writer
	// leaves its frame corked for the last of them to flush (coalesce.go).
	queued atomic.Int32
	// held: writeOrHold left frames held, which no write flushed since.
	held atomic.Bool
	wbuf []byte // the encoding of the last message written, under wmu
	// wdeadline is the write deadline set last, under wmu.
	wdeadline time.Time
	rbuf      []byte // the last message read, by the holder of the reader role
	// keys are the map keys read after the join (keyCache), by the holder
	// of the reader role.
	keys   keyCache
	joined bool      // the join is over: keep keys (keyCache), by the holder of the reader role
	jstack []any     // the JSON parser's scratch, by the holder of the reader role
	lazy   *lazyMsgs // the messages read lazily (made by the first), by the holder of the reader role
	clk    clock
	start  time.Time
	lastRx atomic.Int64 // nanoseconds since start, on clk
	// counters, when set (before the join), count the messages and bytes
	// written and read; onPong, when set, gets the round trip of each
	// keepalive ping answered (pingAt: when it was sent, on clk; 0: none
	// waits).
	counters *Counters
	onPong   func(time.Duration)
	pingAt   atomic.Int64

	closed    chan struct{}
	closeOnce sync.Once
	err       error // why the link ended; set before closed is closed

	// The keepalive's state (keepaliveTick), under kaMu: a timer rather
	// than a goroutine, so that an idle link holds no stack for it.
	kaMu      sync.Mutex
	kaTimer   timer
	kaIdle    time.Duration
	kaPong    time.Duration
	kaPingAt  time.Duration // when the ping awaiting traffic went, while kaWaiting
	kaWaiting bool
}

// Subprotocols of the two serializers.
const (
	protoMsgPack = "wamp.2.msgpack"
	protoJSON    = "wamp.2.json"
)

// dial opens a WebSocket to url offering exactly one WAMP subprotocol
// (wamp.2.json when json is set, else wamp.2.msgpack), and refuses a server
// that answers without it (a nexus client would panic there). Unless plain
// is set, a frameConn goes under the WebSocket where it can (frameDialer).
// netDial, when set, opens the TCP connections (Config.Dial).
func dial(ctx context.Context, url string, json bool, handshake, writeTimeout time.Duration, clk clock, plain bool, netDial func(context.Context, string, string) (net.Conn, error)) (*link, error) {
	proto := protoMsgPack
	if json {
		proto = protoJSON
	}
	d := websocket.Dialer{
		Proxy:            http.ProxyFromEnvironment,
		HandshakeTimeout: handshake,
		Subprotocols:     []string{proto},
		NetDialContext:   netDial,
		WriteBufferPool:  noWriteBuffers{}, // the link writes its frames itself (frameout.go)
	}
	return dialWith(ctx, &d, url, json, writeTimeout, clk, plain, netDial)
}

// dialWith is dial with the WebSocket dialer d, which offers the
// subprotocol json selects.
func dialWith(ctx context.Context, d *websocket.Dialer, url string, json bool, writeTimeout time.Duration, clk clock, plain bool, netDial func(context.Context, string, string) (net.Conn, error)) (*link, error) {
	proto := d.Subprotocols[0]
	var fc *frameConn
	if u, err := neturl.Parse(url); err == nil && !plain {
		frameDialer(d, u, &fc, netDial)
	}
	conn, resp, err := d.DialContext(ctx, url, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if resp != nil {
			err = fmt.Errorf("dial %s: %w (HTTP %s)", url, err, resp.Status)
			if after, ok := retryAfter(resp); ok {
				return nil, &retryAfterError{err: err, after: after}
			}
			return nil, err
		}
		return nil, fmt.Errorf("dial %s: %w", url, err)
	}
	if conn.Subprotocol() != proto {
		conn.Close()
		return nil, fmt.Errorf("dial %s: the server did not accept the %s subprotocol (answered %q)", url, proto, conn.Subprotocol())
	}
	if clk == nil {
		clk = systemClock{}
	}
	l := &link{
		conn:         conn,
		fc:           fc,
		raw:          conn.NetConn(),
		writeTimeout: writeTimeout,
		clk:          clk,
		start:        clk.Now(),
		closed:       make(chan struct{}),
	}
	l.json, l.frame = json, websocket.BinaryMessage
	if json {
		l.frame = websocket.TextMessage
	}
	l.touch()
	if fc != nil {
		fc.scanning, fc.touch = true, l.touch
	}
	conn.SetPongHandler(func(string) error {
		l.touch()
		if fc != nil {
			fc.controls++
		}
		if at := l.pingAt.Swap(0); at != 0 && l.onPong != nil {
			l.onPong(l.since() - time.Duration(at))
		}
		return nil
	})
	conn.SetPingHandler(func(data string) error {
		l.touch()
		if fc != nil {
			fc.controls++
		}
		if err := l.sendControl(websocket.PongMessage, []byte(data)); err != nil && !errors.Is(err, net.ErrClosed) {
			return err
		}
		return nil
	})
	conn.SetCloseHandler(l.answerClose)
	return l, nil
}

// since returns the time elapsed on the link's clock since it was dialed.
func (l *link) since() time.Duration { return l.clk.Now().Sub(l.start) }

// touch notes incoming traffic.
func (l *link) touch() { l.lastRx.Store(int64(l.since())) }

func (l *link) silentFor() time.Duration {
	return l.since() - time.Duration(l.lastRx.Load())
}

// write encodes and sends one message; the engine's codec writes it into a
// buffer reused under the write lock. Writers that queue up behind each
// other reach the socket together (coalesce.go): a nil return then means
// the frame was handed to the link, and a link that fails before it is
// flushed ends with the waiting requests' outcome unknown.
func (l *link) write(msg message) error { return l.writeOrHold(msg, false) }

// writeSized is write, which also returns the size of the message
// written, in bytes.
func (l *link) writeSized(msg message) (int, error) { return l.writeN(msg, false) }

// writeOrHold writes msg; with hold (only on a link with frameConn) it
// leaves its frame held (corked), for a later write or flushHeld to send
// with what follows: the session's goroutine holds the answers it writes
// while more messages wait to be read (inline.go), and flushes them before
// it waits for more or leaves the reader role.
func (l *link) writeOrHold(msg message, hold bool) error {
	_, err := l.writeN(msg, hold)
	return err
}

// writeN is writeOrHold, which also returns the size of msg encoded.
func (l *link) writeN(msg message, hold bool) (int, error) {
	l.queued.Add(1)
	l.wmu.Lock()
	// With writers still queued behind this one, its frame waits for the
	// last of them, which sends them all at once; that one is committed to
	// come, as its count was taken before it waited for the lock.
	last := l.queued.Add(-1) == 0 && !hold
	n, err := l.writeLocked(msg, !last)
	if hold {
		l.held.Store(true)
	}
	if last && l.fc != nil {
		err = l.flushLocked(err)
	}
	l.wmu.Unlock()
	return n, err
}

// flushLocked sends the frames held, under wmu; a failure ends the link
// and is returned unless err is set already.
func (l *link) flushLocked(err error) error {
	l.held.Store(false)
	if ferr := l.fc.flush(); err == nil && ferr != nil {
		err = fmt.Errorf("write: %w", ferr)
		l.close(err)
		err = ErrConnectionLost
	}
	return err
}

// flushHeld sends the frames writeOrHold left held, if any.
func (l *link) flushHeld() {
	if !l.held.Load() {
		return
	}
	l.wmu.Lock()
	_ = l.flushLocked(nil)
	l.wmu.Unlock()
}

// writeLocked encodes msg and writes it, corked when more writers follow.
// It runs under wmu.
func (l *link) writeLocked(msg message, more bool) (int, error) {
	select {
	case <-l.closed:
		return 0, ErrConnectionLost
	default:
	}
	b, err := encode(append(l.wbuf[:0], frameRoom[:]...), l.json, msg) // room for the header (frameout.go)
	if err != nil {
		return 0, err
	}
	l.wbuf = b
	n := len(b) - len(frameRoom)
	if more && l.fc != nil {
		l.fc.out.cork()
	}
	err = l.sendFrame(l.frame, b)
	if cap(l.wbuf) > maxKeptBuffer {
		l.wbuf = nil
	}
	if err != nil {
		l.close(fmt.Errorf("write: %w", err))
		return 0, ErrConnectionLost
	}
	if c := l.counters; c != nil {
		c.MessagesOut.Add(1)
		c.BytesOut.Add(uint64(n))
	}
	return n, nil
}

// maxKeptBuffer is the largest write or read buffer a link keeps for the
// next message.
const maxKeptBuffer = 64 << 10

// read returns the next message. A zero deadline waits without bound; one
// that passes fails the read (and, for a link without frameConn, the link).
func (l *link) read(deadline time.Time) (message, error) {
	l.setDeadline(deadline)
	return l.receive(true)
}

// setDeadline sets the read deadline of the next receive.
func (l *link) setDeadline(t time.Time) {
	if l.fc != nil {
		l.fc.setDeadline(t)
		return
	}
	_ = l.conn.SetReadDeadline(t)
}

// interrupt makes a receive waiting on a link with frameConn return a
// timeout; the link stays usable.
func (l *link) interrupt() {
	if l.fc != nil {
		l.fc.interrupt()
	}
}

// receive returns the next message. On a link with frameConn it waits until
// a whole message is buffered (with control, a ping or pong too, which
// gorilla handles before blocking for the next message) and returns a
// timeout error, leaving the link intact, when the read deadline passes
// first; gorilla's read of a buffered message does not block. Without
// control, a ping or pong buffered with no whole message behind it returns
// errControl: only a reader that may block in gorilla can have it handled.
func (l *link) receive(control bool) (message, error) {
	if fc := l.fc; fc != nil {
		for !fc.ready(control) {
			if !control && fc.ready(true) {
				return nil, errControl
			}
			if err := fc.fill(); err != nil {
				return nil, err
			}
		}
	}
	_, r, err := l.conn.NextReader()
	if err != nil {
		return nil, err
	}
	b, err := readInto(l.rbuf[:0], r)
	if err != nil {
		return nil, err
	}
	if cap(b) <= maxKeptBuffer {
		l.rbuf = b
	}
	if c := l.counters; c != nil {
		c.MessagesIn.Add(1)
		c.BytesIn.Add(uint64(len(b)))
	}
	if l.fc != nil {
		l.fc.consumed++ // and fill noted the traffic
	} else {
		l.touch()
	}
	return l.decode(b)
}

// readInto appends what r reads until EOF to b.
func readInto(b []byte, r io.Reader) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// decode decodes one message from b, the link's read buffer. A PUBLISHED,
// RESULT or INVOCATION is read lazily (lazy.go): its payload refers to b
// until dispatch settles it, before the next message is read; nothing
// else refers to b.
func (l *link) decode(b []byte) (message, error) {
	keys := l.keyCache()
	if msg := decodeLazy(b, l.json, keys, &l.lazy); msg != nil {
		return msg, nil
	}
	msg, err := decode(b, l.json, keys, &l.jstack)
	if err != nil {
		return nil, fmt.Errorf("undecodable message from the router: %w", err)
	}
	return msg, nil
}

// joinDone marks the join over: from now on the link keeps the map keys
// it reads, and the join's buffers go (the HELLO is the largest message
// most sessions write), so an idle session holds none of them.
func (l *link) joinDone() {
	l.wmu.Lock()
	l.joined, l.rbuf, l.wbuf = true, nil, nil
	l.wmu.Unlock()
}

// keyCache returns the link's map keys once the join is over (joined);
// nil before: the join's few messages are read once.
func (l *link) keyCache() *keyCache {
	if !l.joined {
		return nil
	}
	return &l.keys
}

// close ends the link at once; the first reason wins.
func (l *link) close(reason error) {
	l.closeOnce.Do(func() {
		l.err = reason
		close(l.closed)
		_ = l.conn.Close()
	})
}

// reason returns why the link ended (nil while open).
func (l *link) reason() error {
	select {
	case <-l.closed:
		return l.err
	default:
		return nil
	}
}

// startKeepalive starts the keepalive: it pings after idle of silence
// and drops the link when nothing at all arrives within pongTimeout of the
// ping. Incoming traffic of any kind resets the silence, so a busy link is
// never pinged. It runs on a timer of the link's clock (keepaliveTick).
func (l *link) startKeepalive(idle, pongTimeout time.Duration) {
	l.kaMu.Lock()
	defer l.kaMu.Unlock()
	l.kaIdle, l.kaPong = idle, pongTimeout
	l.kaTimer = l.clk.AfterFunc(idle, l.keepaliveTick)
}

// keepaliveTick is the keepalive's timer: once idle has passed it pings a
// link that stayed silent as long (else waits for the rest), and once the
// pong timeout has passed after a ping it drops a link from which nothing
// arrived since. A closed link's timer is not armed again.
func (l *link) keepaliveTick() {
	l.kaMu.Lock()
	defer l.kaMu.Unlock()
	select {
	case <-l.closed:
		return
	default:
	}
	idle := l.kaIdle
	if l.kaWaiting {
		l.kaWaiting = false
		if time.Duration(l.lastRx.Load()) < l.kaPingAt {
			l.close(errKeepalive)
			return
		}
		l.kaTimer.Reset(max(idle-l.silentFor(), time.Millisecond))
		return
	}
	if silent := l.silentFor(); silent < idle {
		l.kaTimer.Reset(idle - silent)
		return
	}
	pingAt := l.since()
	if l.onPong != nil {
		l.pingAt.Store(max(int64(pingAt), 1))
	}
	if err := l.sendControl(websocket.PingMessage, nil); err != nil {
		l.close(fmt.Errorf("keepalive ping: %w", err))
		return
	}
	l.kaPingAt, l.kaWaiting = pingAt, true
	l.kaTimer.Reset(l.kaPong)
}
