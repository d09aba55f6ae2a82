// This file tests that the client waits the time a router asks for in a
// 503's Retry-After before it tries again.

package client_test

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
)

// TestRetryAfterIsHonoured: an upgrade refused with 503 and Retry-After
// (as flockd refuses while too many links await authentication) is retried
// after the time asked for plus less than a second (devices refused
// together come back spread over that second), not at the cadence of
// refused connections (tens of milliseconds), and the next attempt joins.
func TestRetryAfterIsHonoured(t *testing.T) {
	f := newFleet(t)
	busy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "too many connections awaiting authentication", http.StatusServiceUnavailable)
	}))
	defer busy.Close()
	var dials atomic.Int32
	var d net.Dialer
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			addr = busy.Listener.Addr().String()
		}
		return d.DialContext(ctx, network, addr)
	}
	logs := &logCapture{}
	c := newClient(t, f.a.Env(), client.WithDialer(dial), client.WithLogger(slog.New(logs)))
	if err := c.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	failed := logs.with("connection attempt failed")
	if len(failed) != 1 {
		t.Fatalf("%d failed attempts logged, want 1: %v", len(failed), logs.messages())
	}
	if got := failed[0].attrs["retry_in"].Duration(); got < time.Second || got >= 2*time.Second {
		t.Errorf("retried in %v after a 503 with Retry-After: 1, want 1s to 2s", got)
	}
	if n := dials.Load(); n != 2 {
		t.Errorf("%d dials, want 2: the refused one and the one that joined", n)
	}
}
