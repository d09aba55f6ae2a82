package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/wire"
)

// TestEdgeFlags: flockd on loopback refuses requests for other hosts (DNS
// rebinding) but those -allow-host names, and WebSocket links from other
// web origins but its own and those -allow-origin names.
func TestEdgeFlags(t *testing.T) {
	p := serveWithPlatform(t, "-allow-host", "flockd.test, dev.box", "-allow-host", "other.lan",
		"-allow-origin", "http://localhost:5173")
	get := func(host string) (int, string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, p.HTTPURL()+"/fleet", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Host = host
		rsp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer rsp.Body.Close()
		b, _ := io.ReadAll(rsp.Body)
		return rsp.StatusCode, string(b)
	}
	code, body := get("attacker.example:8080")
	if code != http.StatusMisdirectedRequest || !strings.Contains(body, `"attacker.example:8080"`) || !strings.Contains(body, "-allow-host NAME") {
		t.Errorf("Host attacker.example: %d %s", code, body)
	}
	for _, host := range []string{"localhost:8080", "flockd.test", "dev.box:8080", "other.lan"} {
		if code, body := get(host); code != http.StatusOK {
			t.Errorf("Host %s: %d %s", host, code, body)
		}
	}

	dial := func(origin string) int {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		h := http.Header{}
		if origin != "" {
			h.Set("Origin", origin)
		}
		d := websocket.Dialer{Subprotocols: []string{wire.SubprotocolMsgpack}}
		conn, rsp, err := d.DialContext(ctx, p.URL(), h)
		if conn != nil {
			_ = conn.Close()
		}
		if rsp == nil {
			t.Fatalf("Origin %q: %v", origin, err)
		}
		_ = rsp.Body.Close()
		return rsp.StatusCode
	}
	for origin, want := range map[string]int{"": http.StatusSwitchingProtocols, p.HTTPURL(): http.StatusSwitchingProtocols,
		"http://localhost:5173": http.StatusSwitchingProtocols, "http://attacker.example": http.StatusForbidden} {
		if got := dial(origin); got != want {
			t.Errorf("WebSocket with Origin %q: %d, want %d", origin, got, want)
		}
	}
}

// TestEdgeFlagsRefused: a value flockd cannot read stops it with a
// message naming it.
func TestEdgeFlagsRefused(t *testing.T) {
	for _, args := range [][]string{{"-allow-host", "http://x.lan"}, {"-allow-origin", "x.lan:5173"}} {
		err := run(context.Background(), append([]string{"-listen", "127.0.0.1:0", "-memory"}, args...), io.Discard, io.Discard, nil)
		if err == nil || !strings.Contains(err.Error(), `"`+args[1]+`"`) {
			t.Errorf("%v: %v, want a refusal naming it", args, err)
		}
	}
}
