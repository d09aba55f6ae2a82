package edge

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// serve runs one request through a Guard and returns the status.
func serve(t *testing.T, g *Guard, host string, header http.Header) int {
	t.Helper()
	r := httptest.NewRequest(http.MethodGet, "/ws-ua-usr", nil)
	r.Host = host
	for k, v := range header {
		r.Header[k] = v
	}
	w := httptest.NewRecorder()
	g.ServeHTTP(w, r)
	return w.Code
}

func guard(t *testing.T, cfg Config) *Guard {
	t.Helper()
	g, err := New(cfg, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestHostRule: on loopback only loopback and allowed hosts pass; beyond
// loopback every host does.
func TestHostRule(t *testing.T) {
	on := guard(t, Config{Loopback: true, Hosts: []string{"flockd.lan:9000", "192.168.1.20"}})
	off := guard(t, Config{})
	for host, want := range map[string]int{
		"localhost": http.StatusTeapot, "localhost:8080": http.StatusTeapot, "127.0.0.1:8080": http.StatusTeapot,
		"127.255.0.3": http.StatusTeapot, "[::1]:8080": http.StatusTeapot, "[::ffff:127.0.0.1]:1": http.StatusTeapot,
		"flockd.lan": http.StatusTeapot, "flockd.lan:1234": http.StatusTeapot, "192.168.1.20:8080": http.StatusTeapot,
		"": http.StatusMisdirectedRequest, "attacker.example": http.StatusMisdirectedRequest,
		"0.0.0.0:8080": http.StatusMisdirectedRequest, "[::]:8080": http.StatusMisdirectedRequest,
		"192.168.1.21": http.StatusMisdirectedRequest, "lan": http.StatusMisdirectedRequest,
		"localhost@attacker.example": http.StatusMisdirectedRequest,
	} {
		if got := serve(t, on, host, nil); got != want {
			t.Errorf("loopback, Host %q: %d, want %d", host, got, want)
		}
		if got := serve(t, off, host, nil); got != http.StatusTeapot {
			t.Errorf("beyond loopback, Host %q: %d, want it served", host, got)
		}
	}
}

// TestOriginRule: the Origin rule concerns WebSocket upgrades only.
func TestOriginRule(t *testing.T) {
	g := guard(t, Config{Origins: []string{"http://localhost:5173"}})
	upgrade := func(origin string) http.Header {
		h := http.Header{"Connection": {"Upgrade"}, "Upgrade": {"websocket"}}
		if origin != "" {
			h.Set("Origin", origin)
		}
		return h
	}
	for _, tc := range []struct {
		host   string
		header http.Header
		want   int
	}{
		{"127.0.0.1:8080", upgrade(""), http.StatusTeapot},
		{"127.0.0.1:8080", upgrade("http://127.0.0.1:8080"), http.StatusTeapot},
		{"localhost", upgrade("http://localhost:80"), http.StatusTeapot},
		{"localhost:80", upgrade("http://localhost"), http.StatusTeapot},
		{"127.0.0.1:8080", upgrade("http://localhost:5173"), http.StatusTeapot},
		{"127.0.0.1:8080", upgrade("http://localhost:8080"), http.StatusForbidden},
		{"127.0.0.1:8080", upgrade("https://127.0.0.1:8080"), http.StatusForbidden}, // same host and port, another scheme
		{"localhost", upgrade("https://localhost:80"), http.StatusForbidden},
		{"127.0.0.1:8080", upgrade("http://attacker.example"), http.StatusForbidden},
		{"127.0.0.1:8080", upgrade("not an origin"), http.StatusForbidden},
		// A page may send an Origin on ordinary requests: not this rule's
		// business (the console checks its own forms).
		{"127.0.0.1:8080", http.Header{"Origin": {"http://attacker.example"}}, http.StatusTeapot},
	} {
		if got := serve(t, g, tc.host, tc.header); got != tc.want {
			t.Errorf("Host %s, %v: %d, want %d", tc.host, tc.header, got, tc.want)
		}
	}
}

// TestAllowedValues: hosts and origins are normalised; what cannot be
// read is refused with an example of what can.
func TestAllowedValues(t *testing.T) {
	for in, want := range map[string]string{"Flockd.LAN.": "flockd.lan", "flockd.lan:8080": "flockd.lan", "[fe80::1]": "fe80::1", " 10.0.0.2 ": "10.0.0.2"} {
		if got, err := ParseHost(in); err != nil || got != want {
			t.Errorf("ParseHost(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "http://flockd.lan", "flockd.lan/x", "a b", "user@host"} {
		if _, err := ParseHost(in); err == nil || !strings.Contains(err.Error(), "flockd.lan") {
			t.Errorf("ParseHost(%q): %v, want a refusal with an example", in, err)
		}
	}
	for in, want := range map[string]string{"HTTP://LocalHost:5173": "http://localhost:5173", "https://a.example:443/": "https://a.example",
		"http://a.example:80": "http://a.example", "https://a.example:80": "https://a.example:80"} {
		if got, err := ParseOrigin(in); err != nil || got != want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "localhost:5173", "ftp://a.example", "http://a.example/app", "http://a.example?x", "http://u@a.example", "null", "*"} {
		if _, err := ParseOrigin(in); err == nil || !strings.Contains(err.Error(), "http://localhost:5173") {
			t.Errorf("ParseOrigin(%q): %v, want a refusal with an example", in, err)
		}
	}
	if _, err := New(Config{Hosts: []string{"http://x"}}, http.NotFoundHandler()); err == nil {
		t.Error("New took a host it cannot read")
	}
	if _, err := New(Config{Origins: []string{"x"}}, http.NotFoundHandler()); err == nil {
		t.Error("New took an origin it cannot read")
	}
}

// BenchmarkGuard measures the checks of an admitted request against the
// handler alone (the baseline), both with a recorder.
func BenchmarkGuard(b *testing.B) {
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	g, err := New(Config{Loopback: true, Hosts: []string{"flockd.lan"}, Origins: []string{"http://localhost:5173"}}, next)
	if err != nil {
		b.Fatal(err)
	}
	r := httptest.NewRequest(http.MethodGet, "/ws-ua-usr", nil)
	r.Host = "127.0.0.1:8080"
	r.Header.Set("Connection", "Upgrade")
	r.Header.Set("Upgrade", "websocket")
	r.Header.Set("Origin", "http://127.0.0.1:8080")
	for _, bc := range []struct {
		name string
		h    http.Handler
	}{{"baseline", next}, {"guard", g}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bc.h.ServeHTTP(httptest.NewRecorder(), r)
			}
		})
	}
}
