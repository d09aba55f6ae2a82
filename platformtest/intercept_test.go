package platformtest

import (
	"context"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// echoCallee registers proc on in's realm as a nexus client answering its
// first argument; it returns the client.
func echoCallee(t *testing.T, p *Platform, in *Installation, name string) (*client.Client, string) {
	t.Helper()
	c := worldtest.Connect(t, p, in, client.MSGPACK)
	proc := wire.DeviceFunction(in.Device().Project().Key(), in.Device().Key(), in.App().Key(), string(in.Stage()), name)
	err := c.Register(proc, func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
		return client.InvokeResult{Args: inv.Arguments}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c, proc
}

// TestInterceptFailAndWatch: a one-shot fault fails one call with its URI
// and arguments and then lets calls through; a watching fault made before
// it sees every match and passes it on, and Wait waits for the matches.
func TestInterceptFailAndWatch(t *testing.T) {
	f := newFixture(t)
	_, proc := echoCallee(t, f.p, f.in1, "echo")
	caller := worldtest.JoinInstallation(t, f.p, f.in2, false)
	watch := f.p.Intercept(Fault{Kind: KindCall, Realm: f.in2.Realm()})
	f.p.Intercept(Fault{Kind: KindCall, URI: proc, Fail: "app.error.down", Args: []any{"maintenance"}, Times: 1})
	call := func(v string) wamp.Message {
		req := caller.NewReq()
		return caller.Answer(req, &wamp.Call{Request: req, Procedure: wamp.URI(proc), Options: wamp.Dict{}, Arguments: wamp.List{v}}).Msg
	}
	first, ok := call("a").(*wamp.Error)
	if !ok || first.Error != "app.error.down" || first.Type != wamp.CALL || len(first.Arguments) != 1 || first.Arguments[0] != "maintenance" {
		t.Fatalf("first call: %+v, want ERROR app.error.down [maintenance]", first)
	}
	if res, ok := call("b").(*wamp.Result); !ok || res.Arguments[0] != "b" {
		t.Fatalf("second call: %+v, want RESULT [b]", res)
	}
	// The watcher, made first, saw both calls and passed them on.
	if err := watch.Wait(worldtest.Ctx(t), 2); err != nil {
		t.Fatal(err)
	}
	seen := watch.Seen()
	if len(seen) != 2 || seen[0].Kind != KindCall || seen[0].URI != proc || seen[1].Args[0] != "b" || seen[0].AuthID != f.d2.Serial() {
		t.Errorf("seen %+v", seen)
	}
	seen[0].Args[0] = "changed"
	if watch.Seen()[0].Args[0] != "a" {
		t.Error("Seen returned shared state")
	}
}

// TestInterceptDrop: a dropped acknowledged publication is acknowledged and
// reaches no subscriber; the next one does.
func TestInterceptDrop(t *testing.T) {
	f := newFixture(t)
	sub := worldtest.Connect(t, f.p, f.in2, client.MSGPACK)
	events := make(chan *wamp.Event, 4)
	if err := sub.Subscribe("drop.me", func(e *wamp.Event) { events <- e }, nil); err != nil {
		t.Fatal(err)
	}
	pub := worldtest.JoinInstallation(t, f.p, f.in1, false)
	f.p.Intercept(Fault{Kind: KindPublish, URI: "drop.", Prefix: true, Drop: true, Times: 1})
	publish := func(v string) wamp.Message {
		req := pub.NewReq()
		return pub.Answer(req, &wamp.Publish{Request: req, Topic: "drop.me", Options: wamp.Dict{wire.OptAcknowledge: true}, Arguments: wamp.List{v}}).Msg
	}
	if msg := publish("dropped"); msg.MessageType() != wamp.PUBLISHED {
		t.Fatalf("dropped publication answered %+v, want PUBLISHED", msg)
	}
	if msg := publish("kept"); msg.MessageType() != wamp.PUBLISHED {
		t.Fatalf("second publication answered %+v", msg)
	}
	select {
	case e := <-events:
		if e.Arguments[0] != "kept" {
			t.Fatalf("first event %v: the dropped publication was delivered", e.Arguments)
		}
	case <-worldtest.Ctx(t).Done():
		t.Fatal("no event")
	}
}

// TestInterceptHangAndRelease: held calls get no answer until Release;
// calls behind them on the same link are not held up; Cancel lets the
// rest go and ends the fault.
func TestInterceptHangAndRelease(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	_, proc := echoCallee(t, f.p, f.in1, "slow")
	_, other := echoCallee(t, f.p, f.in1, "fast")
	caller := worldtest.JoinInstallation(t, f.p, f.in2, false)
	hang := f.p.Intercept(Fault{Kind: KindCall, URI: proc, Hang: true})
	send := func(uri, v string) wamp.ID {
		req := caller.NewReq()
		caller.Send(&wamp.Call{Request: req, Procedure: wamp.URI(uri), Options: wamp.Dict{}, Arguments: wamp.List{v}})
		return req
	}
	held := send(proc, "held")
	if err := hang.Wait(worldtest.Ctx(t), 1); err != nil {
		t.Fatal(err)
	}
	// A call behind the held one is answered first.
	behind := send(other, "behind")
	if fr := caller.Next(); worldtest.RequestOf(fr.Msg) != behind {
		t.Fatalf("first answer %+v, want the result of the call behind the held one", fr.Msg)
	}
	hang.Release()
	if fr := caller.Next(); worldtest.RequestOf(fr.Msg) != held || fr.Msg.MessageType() != wamp.RESULT {
		t.Fatalf("after Release: %+v, want the held call's RESULT", fr.Msg)
	}
	// Still holding after Release; Cancel lets the held call go and ends
	// the fault.
	second := send(proc, "second")
	if err := hang.Wait(worldtest.Ctx(t), 2); err != nil {
		t.Fatal(err)
	}
	hang.Cancel()
	hang.Cancel()
	if fr := caller.Next(); worldtest.RequestOf(fr.Msg) != second {
		t.Fatalf("after Cancel: %+v", fr.Msg)
	}
	third := send(proc, "third")
	if fr := caller.Next(); worldtest.RequestOf(fr.Msg) != third {
		t.Fatalf("after Cancel, a new call: %+v", fr.Msg)
	}
}

// TestInterceptDelay: a delayed subscription goes on once the platform
// clock has moved by the delay, not before.
func TestInterceptDelay(t *testing.T) {
	f := newFixture(t)
	c := worldtest.JoinInstallation(t, f.p, f.in1, false)
	delay := f.p.Intercept(Fault{Kind: KindSubscribe, Delay: time.Hour})
	req := c.NewReq()
	c.Send(&wamp.Subscribe{Request: req, Topic: "late.topic", Options: wamp.Dict{}})
	if err := delay.Wait(worldtest.Ctx(t), 1); err != nil {
		t.Fatal(err)
	}
	// Nothing comes back while the delay runs: a call answered meanwhile
	// is the next frame.
	probe := c.NewReq()
	if fr := c.Answer(probe, &wamp.Call{Request: probe, Procedure: "nothing.here", Options: wamp.Dict{}}); worldtest.ErrorURI(fr.Msg) != wire.ErrNoSuchProcedure {
		t.Fatalf("probe: %+v", fr.Msg)
	}
	f.p.Clock().Advance(time.Hour)
	if fr := c.Next(); worldtest.RequestOf(fr.Msg) != req || fr.Msg.MessageType() != wamp.SUBSCRIBED {
		t.Fatalf("after the delay: %+v, want SUBSCRIBED", fr.Msg)
	}
}

// TestInterceptHeldOnDisconnect: a client that goes away while its call is
// held leaves nothing behind.
func TestInterceptHeldOnDisconnect(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	c := worldtest.JoinInstallation(t, f.p, f.in1, false)
	hang := f.p.Intercept(Fault{Kind: KindCall, Hang: true})
	req := c.NewReq()
	c.Send(&wamp.Call{Request: req, Procedure: "any.proc", Options: wamp.Dict{}})
	if err := hang.Wait(worldtest.Ctx(t), 1); err != nil {
		t.Fatal(err)
	}
	c.Close()
	f.p.Close()
	if diff := cmp.Diff(1, len(hang.Seen())); diff != "" {
		t.Errorf("seen (-want +got):\n%s", diff)
	}
}
