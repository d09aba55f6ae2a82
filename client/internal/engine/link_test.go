// This file tests the link: dialing a server that refuses the subprotocol.

package engine

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
	_, err := Connect(context.Background(), Config{URL: "ws" + strings.TrimPrefix(srv.URL, "http"), HandshakeTimeout: 10 * time.Second, ResponseTimeout: 10 * time.Second})
	if err == nil || !strings.Contains(err.Error(), "did not accept the wamp.2.msgpack subprotocol") {
		t.Fatalf("Connect = %v, want a subprotocol error", err)
	}
}
