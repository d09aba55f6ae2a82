// This file tests what the client logs when it is connected again: one
// line at info level with the downtime and what it restored.

package client_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// TestReconnectIsLogged: the first connection logs no "connected again";
// every reconnect logs it once at info level with the downtime, the
// subscriptions and registrations restored, and those still being
// retried.
func TestReconnectIsLogged(t *testing.T) {
	f := newFleet(t)
	logs := &logCapture{}
	c := connect(t, f.a, client.WithLogger(slog.New(logs)))
	ctx := ctxT(t)
	for _, topic := range []string{"com.example.a", "com.example.b"} {
		if _, err := c.Subscribe(ctx, topic, func(context.Context, *client.Event) {}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.RegisterDeviceFunction(ctx, "ping", func(context.Context, *client.Invocation) (any, error) { return "pong", nil }); err != nil {
		t.Fatal(err)
	}
	if logs.has("connected again") {
		t.Fatalf("the first connection logged %q", logs.messages())
	}

	f.p.DropConnections()
	logs.await(t, "connected again", 1)
	e := logs.with("connected again")[0]
	if e.level != slog.LevelInfo {
		t.Errorf("logged at %v, want INFO", e.level)
	}
	if got := e.attrs["subscriptions"].Int64(); got != 2 {
		t.Errorf("subscriptions = %d, want 2", got)
	}
	if got := e.attrs["registrations"].Int64(); got != 1 {
		t.Errorf("registrations = %d, want 1", got)
	}
	if d := e.attrs["downtime"].Duration(); d <= 0 {
		t.Errorf("downtime = %v, want > 0", d)
	}
	if e.attrs["realm"].String() != f.a.Realm() {
		t.Errorf("realm = %v, want %s", e.attrs["realm"], f.a.Realm())
	}
	if _, ok := e.attrs["retrying"]; ok {
		t.Errorf("retrying logged although everything was restored: %v", e.attrs)
	}
	if i, j := indexOf(logs, "connection lost"), indexOf(logs, "connected again"); i < 0 || i > j {
		t.Errorf("connection lost at %d, connected again at %d: %v", i, j, logs.messages())
	}

	// A subscription the router refuses once is counted as retried.
	f.p.Refuse(platformtest.Refusal{Kind: platformtest.KindSubscribe, URI: "com.example.b", Times: 1})
	f.p.DropConnections()
	logs.await(t, "connected again", 2)
	e = logs.with("connected again")[1]
	if s, r, n := e.attrs["subscriptions"].Int64(), e.attrs["registrations"].Int64(), e.attrs["retrying"].Int64(); s != 1 || r != 1 || n != 1 {
		t.Errorf("after a refused restore: subscriptions %d, registrations %d, retrying %d; want 1, 1, 1", s, r, n)
	}
}

// indexOf returns the index of the first logged message containing sub, -1
// when none does.
func indexOf(logs *logCapture, sub string) int {
	for i, m := range logs.messages() {
		if strings.Contains(m, sub) {
			return i
		}
	}
	return -1
}
