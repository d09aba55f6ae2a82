// This file holds write coalescing: when several goroutines are queued to
// write on a link, the frames of all but the last are held in the
// frameConn and the last one sends them together, in one system call.
//
// gorilla/websocket writes every frame with its own call to the
// connection, and a write is mostly system call: with 16 requests in
// flight, 16 frames cost 16 calls. Frames are still built by gorilla; only
// the moment they reach the socket moves. Control frames (pong, close)
// written by gorilla meanwhile are held among them in order, which
// WebSocket allows between whole messages, and go out with the next flush.

package engine

import "sync"

// writeCork holds the frames written while corked.
type writeCork struct {
	mu     sync.Mutex
	corked bool
	held   []byte
}

// write holds p while corked and reports whether it did.
func (c *writeCork) write(p []byte) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.corked {
		return false
	}
	c.held = append(c.held, p...)
	return true
}

// cork makes the following writes wait for flush.
func (c *writeCork) cork() {
	c.mu.Lock()
	c.corked = true
	c.mu.Unlock()
}

// Write sends p to the socket, or holds it while the frameConn is corked.
func (f *frameConn) Write(p []byte) (int, error) {
	if f.out.write(p) {
		return len(p), nil
	}
	return f.Conn.Write(p)
}

// flush uncorks and sends the frames held, if any, in one write. The lock
// is kept through the write so that a frame written meanwhile cannot
// overtake those held.
func (f *frameConn) flush() error {
	c := &f.out
	c.mu.Lock()
	defer c.mu.Unlock()
	c.corked = false
	if len(c.held) == 0 {
		return nil
	}
	_, err := f.Conn.Write(c.held)
	if cap(c.held) > maxKeptBuffer {
		c.held = nil
	} else {
		c.held = c.held[:0]
	}
	return err
}
