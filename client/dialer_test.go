// This file tests WithDialer: the client's links go through the given
// function, from the local address it chose, again after a cut.

package client_test

import (
	"context"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
)

// recordingDialer dials from a local address and keeps every connection.
type recordingDialer struct {
	d     net.Dialer
	mu    sync.Mutex
	conns []net.Conn
}

func (r *recordingDialer) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := r.d.DialContext(ctx, network, addr)
	if err == nil {
		r.mu.Lock()
		r.conns = append(r.conns, c)
		r.mu.Unlock()
	}
	return c, err
}

func (r *recordingDialer) all() []net.Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]net.Conn(nil), r.conns...)
}

func TestWithDialer(t *testing.T) {
	f := newFleet(t)
	local := net.ParseIP("127.0.0.2")
	rd := &recordingDialer{d: net.Dialer{LocalAddr: &net.TCPAddr{IP: local}}}
	st := newStates()
	c := newClient(t, f.a.Env(), client.WithDialer(rd.dial), st.option())
	if err := c.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	conns := rd.all()
	if len(conns) != 1 {
		t.Fatalf("the dialer opened %d connections for one session, want 1", len(conns))
	}
	if ip := conns[0].LocalAddr().(*net.TCPAddr).IP; !ip.Equal(local) {
		t.Errorf("the link's local address is %s, want %s", ip, local)
	}
	if err := c.Publish(ctxT(t), "com.example.dialed", 1); err != nil {
		t.Fatalf("publish over the dialed link: %v", err)
	}
	// Cutting the connection the dialer gave makes the client dial again
	// through it.
	conns[0].Close()
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateConnected, 10*time.Second)
	if n := len(rd.all()); n < 2 {
		t.Errorf("after the cut the dialer opened %d connections in all, want at least 2", n)
	}
}
