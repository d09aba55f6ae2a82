// This file holds the connection layer under the HTTP server: a listener
// that tracks every accepted net.Conn (httptest-style servers lose hijacked
// WebSocket connections, so faults could not reach them), the frozen-link
// behaviour of a tracked connection, and the WAMP WebSocket endpoint
// /ws-ua-usr.

package router

import (
	"errors"
	"net"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/gorilla/websocket"

	"github.com/gammazero/nexus/v3/wamp"
)

// writeBuffers are the write buffers of the links, lent while they write.
var writeBuffers sync.Pool

// errPreAuthLimit ends a link that sent too much before authentication.
var errPreAuthLimit = errors.New("pre-authentication byte limit reached")

// trackingListener registers every accepted connection with the platform.
type trackingListener struct {
	net.Listener
	rt *Router
}

// Accept accepts a connection and tracks it.
func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		l.rt.acceptFailed(err) // limits.go
		return nil, err
	}
	l.rt.acceptResumed()
	tc := &trackedConn{Conn: c, rt: l.rt, released: make(chan struct{})}
	tc.lr.init(c)
	l.rt.mu.Lock()
	l.rt.conns[tc] = struct{}{}
	l.rt.mu.Unlock()
	return tc, nil
}

// trackedConn is an accepted connection. A frozen connection is silently
// dead: reads block, writes are discarded and Close leaves the socket open
// (the peer sees nothing) until the platform closes it for good.
type trackedConn struct {
	net.Conn
	rt       *Router
	ws       atomic.Bool // upgraded to a WebSocket
	frozen   atomic.Bool
	released chan struct{} // closed by Close: frozen reads return
	relOnce  sync.Once
	hardOnce sync.Once

	// While guarded, a WebSocket link not yet admitted may read only
	// preAuth more bytes; admission lifts the guard (authenticated).
	guarded atomic.Bool
	preAuth atomic.Int64
	// settled is set once the link stopped counting as unauthenticated
	// (admitted or ended).
	settled atomic.Bool

	wdMu sync.Mutex
	wd   time.Time // the write deadline last set on the socket

	bmu   sync.Mutex
	batch *[]byte // while the writer batches (beginBatch): what waits to be written

	// lr reads the socket once it carries a WebSocket (readbuf.go): by the
	// link's reader alone.
	lr lentReader
}

// guard starts counting the bytes a new WebSocket link reads until it is
// admitted, and counts it among the unauthenticated links.
func (c *trackedConn) guard(limit int64) {
	c.preAuth.Store(limit)
	c.guarded.Store(true)
}

// authenticated lifts the pre-authentication limit.
func (c *trackedConn) authenticated(rt *Router) {
	c.guarded.Store(false)
	if c.settle(rt) {
		rt.admitted.Add(1) // pace.go
	}
}

// settle takes the link out of the unauthenticated count, once; it
// reports whether this call did.
func (c *trackedConn) settle(rt *Router) bool {
	if c.settled.CompareAndSwap(false, true) {
		rt.unauth.leave() // admission.go
		return true
	}
	return false
}

// Read reads from the socket; on a frozen connection it blocks until the
// connection is closed and discards what arrived.
func (c *trackedConn) Read(b []byte) (int, error) {
	if c.frozen.Load() {
		<-c.released
		return 0, net.ErrClosed
	}
	if c.guarded.Load() {
		left := c.preAuth.Load()
		if left <= 0 {
			return 0, errPreAuthLimit
		}
		b = b[:min(int64(len(b)), left)]
	}
	var n int
	var err error
	if c.ws.Load() {
		n, err = c.lr.read(c.Conn, b)
	} else {
		n, err = c.Conn.Read(b)
	}
	if c.guarded.Load() {
		c.preAuth.Add(-int64(n))
	}
	if c.frozen.Load() {
		<-c.released
		return 0, net.ErrClosed
	}
	return n, err
}

// SetWriteDeadline sets the socket's write deadline unless it is set
// already: gorilla/websocket sets the deadline before every frame, and
// the writer keeps one deadline for many frames (writeDeadline).
func (c *trackedConn) SetWriteDeadline(t time.Time) error {
	c.wdMu.Lock()
	defer c.wdMu.Unlock()
	if t.Equal(c.wd) {
		return nil
	}
	c.wd = t
	return c.Conn.SetWriteDeadline(t)
}

// SetDeadline sets the socket's read and write deadlines.
func (c *trackedConn) SetDeadline(t time.Time) error {
	c.wdMu.Lock()
	defer c.wdMu.Unlock()
	c.wd = t
	return c.Conn.SetDeadline(t)
}

// Write writes to the socket, or to the batch while the link's writer
// batches; on a frozen connection it discards b.
func (c *trackedConn) Write(b []byte) (int, error) {
	if c.frozen.Load() {
		return len(b), nil
	}
	c.bmu.Lock()
	if c.batch != nil {
		*c.batch = append(*c.batch, b...)
		c.bmu.Unlock()
		return len(b), nil
	}
	c.bmu.Unlock()
	return c.Conn.Write(b)
}

// batchBuffers are the batches of the links' writers, lent while they
// batch.
var batchBuffers = sync.Pool{New: func() any { b := make([]byte, 0, maxBatch); return &b }}

// maxBatch is how much a writer batches before it writes the batch.
const maxBatch = 64 << 10

// beginBatch makes what gorilla/websocket writes, frames and control
// frames alike, go to a batch, in order, until flushBatch writes it to the
// socket at once: one system call for a burst of frames.
func (c *trackedConn) beginBatch() {
	c.bmu.Lock()
	c.batch = batchBuffers.Get().(*[]byte)
	c.bmu.Unlock()
}

// batched returns the size of the batch.
func (c *trackedConn) batched() int {
	c.bmu.Lock()
	defer c.bmu.Unlock()
	return len(*c.batch)
}

// flushBatch writes the batch to the socket and ends batching.
func (c *trackedConn) flushBatch() error {
	c.bmu.Lock()
	b := c.batch
	c.batch = nil
	c.bmu.Unlock()
	var err error
	if !c.frozen.Load() {
		_, err = c.Conn.Write(*b)
	}
	*b = (*b)[:0]
	if cap(*b) <= 4*maxBatch { // one huge frame's buffer goes to the collector
		batchBuffers.Put(b)
	}
	return err
}

// Close closes the connection, except that a frozen one stays open on the
// wire; its readers are released either way.
func (c *trackedConn) Close() error {
	c.relOnce.Do(func() { close(c.released) })
	if c.frozen.Load() {
		// Wake a read blocked on the socket; the socket itself stays open.
		_ = c.Conn.SetReadDeadline(time.Unix(1, 0))
		return nil
	}
	return c.hardClose()
}

// hardClose closes the socket without a WebSocket close frame and forgets
// the connection.
func (c *trackedConn) hardClose() error {
	c.relOnce.Do(func() { close(c.released) })
	var err error
	c.hardOnce.Do(func() {
		err = c.Conn.Close()
		c.rt.mu.Lock()
		delete(c.rt.conns, c)
		c.rt.mu.Unlock()
	})
	return err
}

// trackedConns returns the tracked connections, WebSocket ones only when
// wsOnly is set.
func (rt *Router) trackedConns(wsOnly bool) []*trackedConn {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := make([]*trackedConn, 0, len(rt.conns))
	for c := range rt.conns {
		if !wsOnly || c.ws.Load() {
			out = append(out, c)
		}
	}
	return out
}

// ServeHTTP serves the WAMP endpoint: it upgrades a request to a WAMP
// WebSocket link and hands it to the router.
func (rt *Router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		http.Error(w, "this is the WAMP WebSocket endpoint; connect with subprotocol "+
			wire.SubprotocolMsgpack+" or "+wire.SubprotocolJSON, http.StatusBadRequest)
		return
	}
	offered := websocket.Subprotocols(r)
	var proto string
	for _, sp := range []string{wire.SubprotocolMsgpack, wire.SubprotocolJSON} {
		if slices.Contains(offered, sp) {
			proto = sp
			break
		}
	}
	if proto == "" {
		http.Error(w, "unsupported WebSocket subprotocol: offer "+wire.SubprotocolMsgpack+" or "+wire.SubprotocolJSON,
			http.StatusBadRequest)
		return
	}
	if !rt.unauth.enter(r.Context(), rt.limits.MaxUnauthenticated, rt.limits.AdmissionLine, rt.limits.AdmissionWait) { // admission.go
		if r.Context().Err() == nil { // else the client left the line
			rt.authBusy(w) // limits.go
		}
		return
	}
	rt.authUnderCap()
	settled := false
	defer func() {
		if !settled {
			rt.unauth.leave()
		}
	}()
	up := websocket.Upgrader{
		Subprotocols: []string{proto},
		CheckOrigin:  func(*http.Request) bool { return true },
		// A link holds a write buffer only while it writes, and a small
		// read buffer over the one it borrows while bytes wait (readbuf.go).
		WriteBufferPool: &writeBuffers,
		ReadBufferSize:  readBufferSize,
	}
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade has answered the request
	}
	conn.SetReadLimit(rt.limits.MaxMessageBytes)
	tc, _ := conn.NetConn().(*trackedConn)
	if tc == nil { // cannot happen: every connection comes from trackingListener
		_ = conn.Close()
		return
	}
	tc.ws.Store(true)
	tc.guard(rt.limits.PreAuthBytes)
	settled = true // from here the link's reader settles the count

	wp := newPeer(rt, conn, tc, proto == wire.SubprotocolJSON)
	gen := rt.adoptPeer(wp)
	if gen == nil {
		tc.settle(rt)
		_ = tc.hardClose()
		return
	}
	defer rt.wg.Done()
	details := wamp.Dict{"type": "websocket", "protocol": proto, "peer": r.RemoteAddr}
	err = gen.nx.AttachClient(wp, details)
	wp.releaseJoin()
	if err != nil {
		rt.log.Debug("wamp join ended without session", "peer", r.RemoteAddr, "err", err)
	}
}

// adoptPeer registers wp with the running router generation and starts its
// goroutines; nil when the platform is down or closed. On success the
// calling handler is counted in rt.wg too and must call rt.wg.Done.
func (rt *Router) adoptPeer(wp *wsPeer) *generation {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.closed || rt.gen == nil {
		return nil
	}
	wp.gen = rt.gen
	rt.peers[wp] = struct{}{}
	rt.wg.Add(3)
	go wp.readLoop()
	go wp.writeLoop()
	wp.startPinger()
	return rt.gen
}
