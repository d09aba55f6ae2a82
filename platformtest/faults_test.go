package platformtest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

func waitDone(t *testing.T, c *client.Client, what string) {
	t.Helper()
	select {
	case <-c.Done():
	case <-worldtest.Ctx(t).Done():
		t.Fatalf("%s: client still connected", what)
	}
}

// waitSessionGone waits until the platform no longer lists session id.
func waitSessionGone(t *testing.T, p *Platform, id uint64) {
	t.Helper()
	if err := p.rt.WaitGone(worldtest.Ctx(t), id); err != nil {
		t.Fatalf("session %d still present: %v", id, err)
	}
}

func TestDropConnections(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	a := worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
	b := worldtest.Connect(t, f.p, f.in2, client.JSON)
	f.p.DropConnections()
	waitDone(t, a, "after DropConnections")
	waitDone(t, b, "after DropConnections")
	waitSessionGone(t, f.p, uint64(a.ID()))
	waitSessionGone(t, f.p, uint64(b.ID()))
	worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
	if err := f.p.WaitSessions(worldtest.Ctx(t), f.in1.Realm(), 1); err != nil {
		t.Fatal(err)
	}
}

func TestRestartKeepsState(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	id, secret := f.in1.Rotate()
	a := worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
	url := f.p.URL()
	if err := f.p.Restart(); err != nil {
		t.Fatal(err)
	}
	waitDone(t, a, "after Restart")
	if f.p.URL() != url {
		t.Errorf("URL changed: %s -> %s", url, f.p.URL())
	}
	c, err := worldtest.Dial(t, f.p.URL(), worldtest.DialConfig(f.in1.Realm(), id, secret, client.MSGPACK))
	if err != nil {
		t.Fatalf("join after restart: %v", err)
	}
	if c.RealmDetails()["authid"] != f.d1.Serial() {
		t.Errorf("authid %v after restart", c.RealmDetails()["authid"])
	}
}

func TestDownUp(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	a := worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
	f.p.Down()
	waitDone(t, a, "after Down")
	id, secret := f.in1.Credentials()
	ctx, cancel := context.WithTimeout(context.Background(), worldtest.Timeout)
	defer cancel()
	if c, err := client.ConnectNet(ctx, f.p.URL(), worldtest.DialConfig(f.in1.Realm(), id, secret, client.MSGPACK)); err == nil {
		_ = c.Close()
		t.Fatal("joined a platform that is down")
	}
	f.p.Down() // idempotent
	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	if err := f.p.Up(); err != nil {
		t.Fatalf("second Up: %v", err)
	}
	worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
}

// TestFreezeConnections: a frozen link is silently dead. The client's
// keepalive notices; the router's keepalive drops the session while the
// socket stays open; new links work. Both keepalives ping every second and
// give up after two missed pongs: shorter intervals let a loaded machine
// miss pongs before the freeze, and the links would end for the wrong
// reason.
func TestFreezeConnections(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t, WithServerKeepalive(time.Second))
	id, secret := f.in1.Credentials()
	cfg := worldtest.DialConfig(f.in1.Realm(), id, secret, client.MSGPACK)
	cfg.WsCfg.KeepAlive = time.Second
	watcher, err := worldtest.Dial(t, f.p.URL(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	raw := worldtest.JoinInstallation(t, f.p, f.in2, false)
	sessions := f.p.Sessions()

	f.p.FreezeConnections()
	waitDone(t, watcher, "client keepalive on a frozen link")
	for _, s := range sessions {
		waitSessionGone(t, f.p, s.ID)
	}
	select {
	case _, open := <-raw.Frames:
		if !open {
			t.Fatal("the frozen link was closed")
		}
		t.Fatal("a frozen link delivered a message")
	default:
	}

	fresh := worldtest.JoinInstallation(t, f.p, f.in1, true)
	req := fresh.NewReq()
	if got := worldtest.ErrorURI(fresh.Answer(req, &wamp.Call{Request: req, Procedure: "nothing.here", Options: wamp.Dict{}}).Msg); got != wire.ErrNoSuchProcedure {
		t.Fatalf("new link after freeze: %q", got)
	}

	f.p.DropConnections()
	if _, err := raw.NextCtx(worldtest.Ctx(t)); err != worldtest.ErrLinkClosed {
		t.Fatalf("frozen link after DropConnections: %v", err)
	}
}

// TestRefuse: a refusal answers the next matching messages with its ERROR
// and lets later ones through.
func TestRefuse(t *testing.T) {
	f := newFixture(t)
	c := worldtest.JoinInstallation(t, f.p, f.in1, false)
	f.p.Refuse(Refusal{Kind: KindSubscribe, URI: "my.topic", Error: "app.error.busy", Args: []any{"later"}, Times: 1})
	subscribe := func() wamp.Message {
		req := c.NewReq()
		return c.Answer(req, &wamp.Subscribe{Request: req, Topic: "my.topic", Options: wamp.Dict{}}).Msg
	}
	first, ok := subscribe().(*wamp.Error)
	if !ok || first.Error != "app.error.busy" || first.Type != wamp.SUBSCRIBE {
		t.Fatalf("first subscribe: %+v, want ERROR app.error.busy", first)
	}
	if diff := cmp.Diff([]any{"later"}, wirevalue.CloneList(first.Arguments)); diff != "" {
		t.Errorf("error args (-want +got):\n%s", diff)
	}
	if msg := subscribe(); msg.MessageType() != wamp.SUBSCRIBED {
		t.Fatalf("second subscribe: %+v", msg)
	}

	cancel := f.p.Refuse(Refusal{Kind: KindCall})
	call := func() string {
		req := c.NewReq()
		return worldtest.ErrorURI(c.Answer(req, &wamp.Call{Request: req, Procedure: "any.proc", Options: wamp.Dict{}}).Msg)
	}
	for range 2 {
		if got := call(); got != wire.ErrNotAuthorized {
			t.Fatalf("refused call: %q", got)
		}
	}
	cancel()
	cancel()
	if got := call(); got != wire.ErrNoSuchProcedure {
		t.Fatalf("call after cancel: %q", got)
	}
	if n := len(f.p.Calls()); n != 3 {
		t.Errorf("recorded %d calls, want 3 (refused ones included)", n)
	}
}
