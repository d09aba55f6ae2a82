package platformtest

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// edgeGet sends GET path to p with the Host header host and returns the
// status and body.
func edgeGet(t *testing.T, p *Platform, path, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.HTTPURL()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Authorization", "Bearer "+worldtest.AliceToken)
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer rsp.Body.Close()
	b, _ := io.ReadAll(rsp.Body)
	return rsp.StatusCode, string(b)
}

// TestHostGuard: a platform listening on loopback answers only requests
// naming a loopback host (DNS rebinding: a page of attacker.example whose
// name now resolves to 127.0.0.1 must not reach the console, the REST API,
// the object store or the router), plus the hosts it was told to allow.
func TestHostGuard(t *testing.T) {
	p := New(t, WithConsole(Console{}), WithAllowedHosts("flockd.test", "Dev-Box."))
	p.AddUser("alice", worldtest.AliceToken, map[*Project]string{p.AddProject("p", Key(1)): RoleAdmin})
	port := p.addr[strings.LastIndex(p.addr, ":"):]
	for _, host := range []string{"attacker.example", "attacker.example" + port, "localhost.attacker.example",
		"127.0.0.1.nip.io" + port, "10.0.0.1" + port, "[fe80::1]" + port, "evil.localhost", "flockd.test.attacker.example"} {
		for _, path := range []string{"/", "/fleet", "/v1/platform/devices", wire.RouterPath, "/store/x", "/f/1/default/x"} {
			code, body := edgeGet(t, p, path, host)
			if code != http.StatusMisdirectedRequest || !strings.Contains(body, "not served here") {
				t.Errorf("GET %s with Host %s: %d %q, want 421 naming the rule", path, host, code, body)
			}
		}
	}
	for _, host := range []string{"127.0.0.1" + port, "localhost" + port, "LOCALHOST", "localhost." + port, "127.8.9.10", "[::1]" + port,
		"flockd.test" + port, "FLOCKD.TEST", "dev-box"} {
		if code, body := edgeGet(t, p, "/v1/platform/devices", host); code != http.StatusOK {
			t.Errorf("GET with Host %s: %d %s, want 200", host, code, body)
		}
	}
	code, body := edgeGet(t, p, "/fleet", "attacker.example"+port)
	for _, s := range []string{`"attacker.example` + port + `"`, "loopback", "localhost", "127.0.0.1", "::1", "-allow-host", "WithAllowedHosts"} {
		if !strings.Contains(body, s) {
			t.Errorf("the refusal (%d) does not say %q: %s", code, s, body)
		}
	}
}

// wsDial opens a WAMP WebSocket link to p with the Origin header origin
// ("" sends none) and returns the status of the answer.
func wsDial(t *testing.T, p *Platform, origin string) (int, string) {
	t.Helper()
	d := websocket.Dialer{Subprotocols: []string{wire.SubprotocolJSON}}
	h := http.Header{}
	if origin != "" {
		h.Set("Origin", origin)
	}
	conn, rsp, err := d.DialContext(worldtest.Ctx(t), p.URL(), h)
	if conn != nil {
		_ = conn.Close()
	}
	if rsp == nil {
		t.Fatalf("dial with Origin %q: %v", origin, err)
	}
	defer rsp.Body.Close()
	b, _ := io.ReadAll(rsp.Body)
	return rsp.StatusCode, string(b)
}

// TestOriginGuard: a WebSocket link from a web page of another origin is
// refused; the platform's own pages, clients that send no Origin
// (devices) and the origins it was told to allow may open one.
func TestOriginGuard(t *testing.T) {
	p := New(t, WithAllowedOrigins("http://localhost:5173", "HTTPS://Dash.Example.com:443"))
	own := p.HTTPURL()
	for _, origin := range []string{"", own, strings.ToUpper(own), "http://localhost:5173", "https://dash.example.com"} {
		if code, body := wsDial(t, p, origin); code != http.StatusSwitchingProtocols {
			t.Errorf("Origin %q: %d %s, want 101", origin, code, body)
		}
	}
	for _, origin := range []string{"http://attacker.example", "http://localhost:5174", "https://dash.example.com:8443",
		"null", "http://127.0.0.1", own + ".attacker.example", "file://"} {
		code, body := wsDial(t, p, origin)
		if code != http.StatusForbidden || !strings.Contains(body, origin) || !strings.Contains(body, "-allow-origin") {
			t.Errorf("Origin %q: %d %q, want 403 naming it and -allow-origin", origin, code, body)
		}
	}
}

// TestEdgeOptionsRefused: a host or an origin that cannot be read stops
// Start, with a message naming it.
func TestEdgeOptionsRefused(t *testing.T) {
	for _, opt := range []struct {
		o    Option
		want string
	}{
		{WithAllowedHosts("http://flockd.lan"), `allowed host "http://flockd.lan"`},
		{WithAllowedOrigins("localhost:5173"), `allowed origin "localhost:5173"`},
	} {
		p, err := Start(opt.o)
		if err == nil {
			p.Close()
			t.Errorf("Start took it; want %s", opt.want)
			continue
		}
		if !strings.Contains(err.Error(), opt.want) {
			t.Errorf("Start: %v, want %s", err, opt.want)
		}
	}
}
