// This file tests write coalescing: frames held while corked reach the
// socket in one write, in order, and writes are direct otherwise.

package engine

import (
	"bytes"
	"net"
	"sync"
	"testing"
)

// countingConn records every write that reaches the socket.
type countingConn struct {
	net.Conn
	mu     sync.Mutex
	writes [][]byte
}

func (c *countingConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, append([]byte(nil), p...))
	return len(p), nil
}

func TestCorkedFramesLeaveInOneWrite(t *testing.T) {
	cc := &countingConn{}
	f := &frameConn{Conn: cc}
	if _, err := f.Write([]byte("a")); err != nil || len(cc.writes) != 1 {
		t.Fatalf("an uncorked write did not reach the socket at once: %d writes, %v", len(cc.writes), err)
	}
	f.out.cork()
	for _, p := range []string{"b1", "c22", "d333"} {
		if n, err := f.Write([]byte(p)); err != nil || n != len(p) {
			t.Fatalf("corked write %q: %d %v", p, n, err)
		}
	}
	if len(cc.writes) != 1 {
		t.Fatalf("corked frames reached the socket before the flush: %q", cc.writes)
	}
	if err := f.flush(); err != nil {
		t.Fatal(err)
	}
	if len(cc.writes) != 2 || !bytes.Equal(cc.writes[1], []byte("b1c22d333")) {
		t.Fatalf("the flush wrote %q, want the held frames in order in one write", cc.writes[1:])
	}
	if err := f.flush(); err != nil || len(cc.writes) != 2 {
		t.Errorf("a flush with nothing held wrote: %q %v", cc.writes, err)
	}
	if _, err := f.Write([]byte("e")); err != nil || len(cc.writes) != 3 {
		t.Errorf("a write after the flush was held: %q", cc.writes)
	}
}
