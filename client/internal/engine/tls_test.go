// This file tests a Session over wss: the frameConn goes under the TLS
// layer's plaintext, and callers still read their own answers.

package engine

import (
	"context"
	"encoding/pem"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
)

// TestSessionOverTLS puts a TLS-terminating reverse proxy in front of the
// fake platform, trusts its certificate through SSL_CERT_FILE (read once
// per process, before any other TLS use in this package's tests), and
// checks that a session over wss joins, gets acknowledged publications,
// receives an event and calls a procedure, with a frameConn under it.
func TestSessionOverTLS(t *testing.T) {
	leakcheck.Check(t)
	p, a, b := platformPair(t)
	target, err := url.Parse(strings.Replace(p.URL(), "ws://", "http://", 1))
	if err != nil {
		t.Fatal(err)
	}
	target.Path = ""
	proxy := httptest.NewTLSServer(httputil.NewSingleHostReverseProxy(target))
	t.Cleanup(proxy.Close)
	certFile := filepath.Join(t.TempDir(), "ca.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: proxy.Certificate().Raw})
	if err := os.WriteFile(certFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", certFile)
	wssURL := strings.Replace(proxy.URL, "https://", "wss://", 1) + strings.TrimPrefix(p.URL(), "ws://"+target.Host)

	sa, sb := connectWith(t, installationConfig(a, wssURL)), connectWith(t, installationConfig(b, wssURL))
	if sa.l.fc == nil {
		t.Fatal("a wss link without a proxy has no frameConn under it")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	events := make(chan Event, 1)
	if err := sb.Subscribe(ctx, &Topic{URI: "com.example.tls", Deliver: func(e Event) { events <- e }}); err != nil {
		t.Fatal(err)
	}
	env := b.Env()
	swarm, _ := strconv.Atoi(env[wire.EnvSwarmKey])
	appKey, _ := strconv.Atoi(env[wire.EnvAppKey])
	echo := wire.DeviceFunction(swarm, b.Device().Key(), appKey, env[wire.EnvStage], "echo")
	proc := &Procedure{URI: echo, Options: map[string]any{}, Handler: func(_ context.Context, inv Invocation) (Payload, error) {
		return Payload{Args: inv.Args}, nil
	}}
	if err := sb.Register(ctx, proc); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		if err := sa.Publish(ctx, "com.example.tls", []any{int64(i)}, nil); err != nil {
			t.Fatalf("publish %d over wss: %v", i, err)
		}
		if e := <-events; e.Args[0] != int64(i) {
			t.Fatalf("event %v, want %d", e.Args, i)
		}
	}
	res, err := sa.Call(ctx, echo, []any{"over tls"}, nil, CallOptions{})
	if err != nil || len(res.Args) != 1 || res.Args[0] != "over tls" {
		t.Fatalf("call over wss: %v %v", res, err)
	}
}
