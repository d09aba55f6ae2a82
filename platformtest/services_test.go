package platformtest

import (
	"context"
	"errors"
	"testing"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// echoService registers test.echo, answering the realm and the caller's
// authid, and forwards events of test.events to a channel.
func echoService(events chan<- *wamp.Event) realm.Service {
	return testService{name: "echo", attach: func(h *realm.Host) error {
		realm := h.Realm.Name
		err := h.Register("test.echo", func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
			return client.InvokeResult{Args: wamp.List{realm, inv.Details["caller_authid"]}}
		}, nil)
		if err != nil {
			return err
		}
		return h.Subscribe("test.events", func(e *wamp.Event) { events <- e }, nil)
	}}
}

// testService is a realm.Service made of a function.
type testService struct {
	name   string
	attach func(h *realm.Host) error
}

func (s testService) Name() string               { return s.name }
func (s testService) Attach(h *realm.Host) error { return s.attach(h) }

// TestServicesFollowRealms: a service runs on every realm that is up,
// comes back after ReleaseRealm and Restart, and sees the serial of its
// callers and publishers.
func TestServicesFollowRealms(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	events := make(chan *wamp.Event, 4)
	f.p.rt.AddService(echoService(events)) // realm-2-26-dev is already up
	prod := f.p.Install(f.d1, f.app, Prod)

	echo := func(in *Installation) {
		t.Helper()
		c := worldtest.Connect(t, f.p, in, client.MSGPACK)
		res, err := c.Call(worldtest.Ctx(t), "test.echo", nil, nil, nil, nil)
		if err != nil {
			t.Fatalf("call on %s: %v", in.Realm(), err)
		}
		if len(res.Arguments) != 2 || res.Arguments[0] != in.Realm() || res.Arguments[1] != in.Device().Serial() {
			t.Errorf("echo on %s: %v", in.Realm(), res.Arguments)
		}
		_ = c.Close()
	}
	echo(f.in1)
	echo(prod)

	f.p.WithholdRealm(prod.Realm())
	f.p.ReleaseRealm(prod.Realm())
	echo(prod)
	if err := f.p.Restart(); err != nil {
		t.Fatal(err)
	}
	echo(f.in2)

	c := worldtest.Connect(t, f.p, f.in2, client.JSON)
	if err := c.Publish("test.events", nil, wamp.List{"hi"}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-events:
		if e.Details["publisher_authid"] != f.d2.Serial() || e.Details["publisher_authrole"] != wire.RoleApp {
			t.Errorf("service saw event details %v", e.Details)
		}
	case <-worldtest.Ctx(t).Done():
		t.Fatal("service got no event")
	}
}

// TestPatternEventDetails: a pattern subscriber gets the publication topic,
// an exact one does not; every network subscriber gets details of its own.
func TestPatternEventDetails(t *testing.T) {
	f := newFixture(t)
	var subs []*worldtest.WireClient
	for i, match := range []string{"prefix", "", "wildcard"} {
		in := f.in1
		if i%2 == 1 {
			in = f.in2
		}
		c := worldtest.JoinInstallation(t, f.p, in, i == 2)
		topic := "my.topic"
		switch match {
		case "prefix":
			topic = "my."
		case "wildcard":
			topic = "my."
		}
		req := c.NewReq()
		opts := wamp.Dict{}
		if match != "" {
			opts[wire.OptMatch] = match
		}
		if msg := c.Answer(req, &wamp.Subscribe{Request: req, Topic: wamp.URI(topic), Options: opts}).Msg; msg.MessageType() != wamp.SUBSCRIBED {
			t.Fatalf("subscribe %s: %v", match, msg)
		}
		subs = append(subs, c)
	}
	pub := worldtest.Connect(t, f.p, f.in2, client.MSGPACK)
	if err := pub.Publish("my.topic", wamp.Dict{wire.OptAcknowledge: true}, nil, nil); err != nil {
		t.Fatal(err)
	}
	for i, c := range subs {
		var e *wamp.Event
		for e == nil {
			e, _ = c.Next().Msg.(*wamp.Event)
		}
		_, hasTopic := e.Details["topic"]
		if hasTopic != (i != 1) {
			t.Errorf("subscriber %d: details %v", i, e.Details)
		}
		if e.Details["publisher_authid"] != f.d2.Serial() {
			t.Errorf("subscriber %d: publisher_authid %v", i, e.Details["publisher_authid"])
		}
	}
}

// TestServicePublishesWhileRealmEnds: a service's event handler that
// publishes after its realm's session said goodbye (the router no longer
// reads that session) gets realm.ErrEnded instead of waiting forever, so
// Close returns.
func TestServicePublishesWhileRealmEnds(t *testing.T) {
	leakcheck.Check(t)
	p, err := Start() // not New: a hanging Close must not hang the cleanup too
	if err != nil {
		t.Fatal(err)
	}
	in := p.Install(p.AddDevice("d"), p.AddApp("a", ""), Dev)
	hosts := make(chan *realm.Host, 1)
	entered, release := make(chan struct{}), make(chan struct{})
	published := make(chan error, 1)
	p.rt.AddService(testService{name: "relay", attach: func(h *realm.Host) error {
		hosts <- h
		return h.Subscribe("test.relay", func(*wamp.Event) {
			close(entered)
			<-release
			published <- h.Publish("test.relayed", nil, nil, nil)
		}, nil)
	}})
	h := <-hosts

	// A session of the test's own watches the platform's session leave.
	watcher, err := p.rt.LocalSession(in.Realm(), "watcher")
	if err != nil {
		t.Fatal(err)
	}
	left := make(chan wamp.ID, 8)
	err = watcher.Subscribe(string(wamp.MetaEventSessionOnLeave), func(e *wamp.Event) {
		if id, ok := wamp.AsID(e.Arguments[0]); ok {
			left <- id
		}
	}, nil)
	if err != nil {
		t.Fatal(err)
	}

	c := worldtest.Connect(t, p, in, client.MSGPACK)
	if err := c.Publish("test.relay", wamp.Dict{wire.OptAcknowledge: true}, nil, nil); err != nil {
		t.Fatal(err)
	}
	<-entered
	closed := make(chan struct{})
	go func() {
		p.Close()
		close(closed)
	}()
	for id := wamp.ID(0); id != h.Session.ID(); {
		select {
		case id = <-left:
		case <-worldtest.Ctx(t).Done():
			t.Fatal("the platform's session did not leave the realm")
		}
	}
	// Close waits for the handler, so the router is still up.
	if err := watcher.Close(); err != nil {
		t.Fatal(err)
	}
	close(release) // the handler publishes now, after its session's goodbye
	select {
	case <-closed:
	case <-worldtest.Ctx(t).Done():
		t.Fatal("Close does not return while a service's event handler publishes")
	}
	if err := <-published; !errors.Is(err, realm.ErrEnded) {
		t.Errorf("publication after the realm ended: %v, want realm.ErrEnded", err)
	}
}
