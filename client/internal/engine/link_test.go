package client

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// A server that accepts the WebSocket without a WAMP subprotocol makes a
// nexus client panic; the SDK refuses it with an error.
func TestDialRefusesServerWithoutSubprotocol(t *testing.T) {
	leakcheck.Check(t)
	up := websocket.Upgrader{} // offers no subprotocol
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		conn, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		defer conn.Close()
		_, _, _ = conn.ReadMessage()
	}))
	defer srv.Close()
	_, err := dialLink(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), MsgPack, time.Second, time.Second)
	if err == nil || !strings.Contains(err.Error(), "did not accept the wamp.2.msgpack subprotocol") {
		t.Fatalf("dialLink = %v, want a subprotocol error", err)
	}
}

func TestMailboxOrder(t *testing.T) {
	mb := newMailbox[int]()
	next := 0
	take := func() {
		v, ok := mb.take()
		if !ok {
			t.Fatalf("mailbox empty, want %d", next)
		}
		if v != next {
			t.Fatalf("took %d, want %d", v, next)
		}
		next++
	}
	for i := range 5000 {
		mb.put(i)
		if i%3 == 0 {
			take()
		}
	}
	for next < 5000 {
		take()
	}
	if _, ok := mb.take(); ok {
		t.Fatal("mailbox not empty")
	}
	mb.put(7)
	mb.close()
	if mb.put(8) {
		t.Error("put after close accepted")
	}
	if v, ok := mb.take(); !ok || v != 7 {
		t.Errorf("item queued before close: %d %v", v, ok)
	}
	if !mb.isClosed() {
		t.Error("not closed")
	}
}
