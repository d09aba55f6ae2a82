// This file tests reconnects: drops, restarts, outages, restore retries,
// keepalive, the realm cadence and credential rotation.

package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

// traffic sets up a subscription on c and a device function on c, and
// checks that both work from peer.
type traffic struct {
	col   *collector
	calls atomic.Int32
}

func setupTraffic(t *testing.T, c *client.Client) *traffic {
	t.Helper()
	tr := &traffic{col: newCollector()}
	ctx := ctxT(t)
	if _, err := c.Subscribe(ctx, "com.example.restore", tr.col.handler); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RegisterDeviceFunction(ctx, "ping", func(context.Context, *client.Invocation) (any, error) {
		tr.calls.Add(1)
		return "pong", nil
	}); err != nil {
		t.Fatal(err)
	}
	return tr
}

func (tr *traffic) check(t *testing.T, peer *client.Client, target int) {
	t.Helper()
	ctx := ctxT(t)
	if err := peer.Publish(ctx, "com.example.restore", "hello"); err != nil {
		t.Fatalf("publish after reconnect: %v", err)
	}
	if ev := tr.col.next(t); ev.Args[0] != "hello" {
		t.Fatalf("event = %v", ev.Args)
	}
	res, err := peer.CallDeviceFunction(ctx, target, "ping")
	if err != nil {
		t.Fatalf("call after reconnect: %v", err)
	}
	if res.Args[0] != "pong" {
		t.Fatalf("result = %v", res.Args)
	}
}

func TestReconnectAfterDrop(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	st := newStates()
	c := connect(t, f.a, st.option())
	pst := newStates()
	peer := connect(t, f.b, pst.option())
	tr := setupTraffic(t, c)
	tr.check(t, peer, f.a.Device().Key())

	f.p.DropConnections()
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateConnected, 10*time.Second)
	pst.awaitReconnect(t)
	tr.check(t, peer, f.a.Device().Key())
}

func TestReconnectAfterRestart(t *testing.T) {
	f := newFleet(t)
	st := newStates()
	c := connect(t, f.a, st.option())
	pst := newStates()
	peer := connect(t, f.b, pst.option())
	tr := setupTraffic(t, c)

	if err := f.p.Restart(); err != nil {
		t.Fatal(err)
	}
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateConnected, 10*time.Second)
	pst.awaitReconnect(t)
	tr.check(t, peer, f.a.Device().Key())
}

func TestOperationDuringOutageWaits(t *testing.T) {
	f := newFleet(t)
	st := newStates()
	c := connect(t, f.a, st.option())
	f.p.Down()
	// A publish sent on the link before the client noticed its end fails
	// (plain publishes are not retried); one issued while reconnecting
	// waits for the next session.
	st.await(t, client.StateReconnecting, 10*time.Second)
	waiting := onWait(c)
	errc := make(chan error, 1)
	go func() { errc <- c.Publish(context.Background(), "com.example.outage", 1) }()
	<-waiting
	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("publish issued during the outage: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("publish did not complete after the router came back")
	}
}

func TestRestoreFailureIsRetried(t *testing.T) {
	f := newFleet(t)
	st := newStates()
	logs := &logCapture{}
	c := connect(t, f.a, st.option(), client.WithLogger(slog.New(logs)))
	pst := newStates()
	peer := connect(t, f.b, pst.option())
	tr := setupTraffic(t, c)

	cancel := f.p.Refuse(platformtest.Refusal{Kind: platformtest.KindSubscribe, URI: "com.example.restore", Times: 1})
	defer cancel()
	f.p.DropConnections()
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateConnected, 10*time.Second)
	if !logs.has("could not restore after reconnect") {
		t.Fatalf("the refused re-subscribe was not reported; logs: %v", logs.messages())
	}
	// The registration was restored with the session; the subscription
	// comes back on the retry.
	pst.awaitReconnect(t)
	res, err := peer.CallDeviceFunction(ctxT(t), f.a.Device().Key(), "ping")
	if err != nil || res.Args[0] != "pong" {
		t.Fatalf("call = %v, %v", res, err)
	}
	eventually(t, 10*time.Second, "subscription restored by the retry", func() bool {
		if err := peer.Publish(ctxT(t), "com.example.restore", "again"); err != nil {
			t.Fatal(err)
		}
		select {
		case <-tr.col.ch:
			return true
		case <-time.After(50 * time.Millisecond):
			return false
		}
	})
}

// TestRefusedReregisterRetriedAtNextReconnect refuses the REGISTER of a
// device function during a restore (and the retries on that session, which
// a long restore backoff keeps away anyway): the session is announced with
// the other items restored, and the next reconnect registers it again.
func TestRefusedReregisterRetriedAtNextReconnect(t *testing.T) {
	f := newFleet(t)
	st := newStates()
	c := connect(t, f.a, st.option(), client.WithRestoreBackoff(time.Hour, time.Hour))
	pst := newStates()
	peer := connect(t, f.b, pst.option())
	tr := setupTraffic(t, c)
	ctx := ctxT(t)
	uri := fmt.Sprintf("%d.%d.%d.DEV.ping", f.a.Device().Project().Key(), f.a.Device().Key(), f.app.Key())
	refused := f.p.Intercept(platformtest.Fault{Kind: platformtest.KindRegister, URI: uri, Fail: "wamp.error.not_authorized"})
	defer refused.Cancel()

	f.p.DropConnections()
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateConnected, 10*time.Second)
	pst.awaitReconnect(t)
	if err := refused.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	// Announced without the procedure, with the subscription.
	if err := peer.Publish(ctx, "com.example.restore", "hello"); err != nil {
		t.Fatal(err)
	}
	if ev := tr.col.next(t); ev.Args[0] != "hello" {
		t.Fatalf("event = %v", ev.Args)
	}
	if _, err := peer.CallDeviceFunction(ctx, f.a.Device().Key(), "ping"); client.WampURI(err) != "wamp.error.no_such_procedure" {
		t.Fatalf("call while the registration is refused: %v, want wamp.error.no_such_procedure", err)
	}

	refused.Cancel()
	f.p.DropConnections()
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateConnected, 10*time.Second) // restored before announced
	pst.awaitReconnect(t)
	tr.check(t, peer, f.a.Device().Key())
	if n := count(f.p, platformtest.KindRegister, uri); n != 3 {
		t.Errorf("REGISTER sent %d times, want 3 (first, refused restore, next reconnect)", n)
	}
}

func TestKeepaliveDetectsDeadLink(t *testing.T) {
	f := newFleet(t)
	st := newStates()
	c := connect(t, f.a, st.option(), client.WithKeepalive(client.MinKeepaliveIdle, client.MinPongTimeout))
	pst := newStates()
	peer := connect(t, f.b, pst.option(), client.WithKeepalive(client.MinKeepaliveIdle, client.MinPongTimeout))
	tr := setupTraffic(t, c)

	f.p.FreezeConnections()
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateConnected, 10*time.Second)
	pst.awaitReconnect(t)
	// The frozen session still holds the procedure on the router; the new
	// session took it over with force_reregister.
	tr.check(t, peer, f.a.Device().Key())
}

func TestRealmCadence(t *testing.T) {
	f := newFleet(t)
	realm := f.a.Realm()
	f.p.WithholdRealm(realm)
	st := newStates()
	logs := &logCapture{}
	c := newClient(t, f.a.Env(), st.option(), client.WithLogger(slog.New(logs)),
		client.WithReconnectBackoff(10*time.Millisecond, 20*time.Millisecond),
		client.WithRealmRetry(300*time.Millisecond, time.Second))
	const failed = "connection attempt failed"
	startErr := make(chan error, 1)
	go func() { startErr <- c.Start(context.Background()) }()

	// The cadence is read from the delay each failed attempt announces:
	// 10–20 ms for the first 300 ms, then about a second (jitter only
	// shortens it, by up to 10 %).
	st.await(t, client.StateReconnectingSlow, 10*time.Second)
	logs.await(t, failed, len(logs.with(failed))+1) // an attempt of the slow cadence
	fast, slow := 0, 0
	for _, e := range logs.with(failed) {
		switch d := e.attrs["retry_in"].Duration(); {
		case d <= 20*time.Millisecond && slow == 0:
			fast++
		case d >= 900*time.Millisecond && d <= time.Second:
			slow++
		default:
			t.Errorf("attempt %d announced a retry in %v (after %d fast and %d slow ones)", fast+slow, d, fast, slow)
		}
	}
	if fast == 0 || slow == 0 {
		t.Errorf("%d fast and %d slow attempts; want both", fast, slow)
	}
	// The router goes away and comes back: the next attempt fails to dial,
	// which brings the fast cadence back.
	f.p.Down()
	st.await(t, client.StateConnecting, 10*time.Second)
	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	// Still no realm: fast first, slow again after the streak.
	st.await(t, client.StateReconnectingSlow, 10*time.Second)
	f.p.ReleaseRealm(realm)
	select {
	case err := <-startErr:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Start did not return after the realm appeared")
	}
	if !c.IsConnected() {
		t.Fatal("not connected")
	}
}

func TestCredentialRotationThroughMirror(t *testing.T) {
	f := newFleet(t)
	dir := t.TempDir()
	if err := f.a.WriteEnvDir(dir); err != nil {
		t.Fatal(err)
	}
	env := f.a.LegacyEnv() // credentials only in the mirror
	env["IRONFLOCK_ENV_DIR"] = dir
	st := newStates()
	c := newClient(t, env, st.option())
	if err := c.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	oldID, _ := f.a.Credentials()

	newID, newSecret := f.a.Rotate()
	f.p.Clock().Advance(16 * time.Minute) // the previous epoch is stale now
	f.p.DropConnections()
	st.await(t, client.StateReconnecting, 10*time.Second)
	// The stale credential keeps being refused…
	eventually(t, 10*time.Second, "stale credential refused", func() bool {
		for _, a := range f.p.AuthLog() {
			if a.AuthID == oldID && !a.Admitted {
				return true
			}
		}
		return false
	})
	if c.IsConnected() {
		t.Fatal("connected with a stale credential")
	}
	// …until the agent writes the new one.
	write := func(name, v string) {
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("APP_AUTH_SECRET", newSecret)
	write("APP_AUTH_ID", newID)
	st.await(t, client.StateConnected, 10*time.Second)
	if err := c.Publish(ctxT(t), "com.example.rotated", 1); err != nil {
		t.Fatal(err)
	}
}

func TestWrongSecretKeepsRetrying(t *testing.T) {
	f := newFleet(t)
	env := f.a.Env()
	env["APP_AUTH_SECRET"] = "wrong"
	logs := &logCapture{}
	c := newClient(t, env, client.WithLogger(slog.New(logs)))
	err := startUntilLogged(t, c, logs, "connection attempt failed", 2)
	if err == nil || !strings.Contains(err.Error(), "wamp.error.authentication_failed") {
		t.Fatalf("Start = %v, want an end naming the refusal", err)
	}
	refused := 0
	for _, a := range f.p.AuthLog() {
		if !a.Admitted {
			refused++
		}
	}
	if refused < 2 {
		t.Errorf("only %d attempts were refused; the client must keep retrying", refused)
	}
	if c.State() != client.StateIdle {
		t.Errorf("state after a failed Start = %s", c.State())
	}
}
