package realm

import (
	"context"
	"io"
	"log"
	"log/slog"
	"testing"

	"github.com/gammazero/nexus/v3/client"
	nexus "github.com/gammazero/nexus/v3/router"
	"github.com/gammazero/nexus/v3/wamp"
)

// TestServe checks which registrations the router may serve itself, and
// that End cancels their calls and waits for their answers before it
// closes the session.
func TestServe(t *testing.T) {
	nx, err := nexus.NewRouter(&nexus.Config{RealmConfigs: []*nexus.RealmConfig{{URI: "realm-1-2-DEV"}}}, log.New(io.Discard, "", 0))
	if err != nil {
		t.Fatal(err)
	}
	defer nx.Close()
	c, err := client.ConnectLocal(nx, client.Config{Realm: "realm-1-2-DEV", Logger: log.New(io.Discard, "", 0)})
	if err != nil {
		t.Fatal(err)
	}
	h := &Host{Realm: NewInfo(1, 2, "DEV"), Session: c, Log: slog.New(slog.DiscardHandler), Demand: &Demand{}}
	answer := func(context.Context, *wamp.Invocation) client.InvokeResult {
		return client.InvokeResult{Args: wamp.List{"ok"}}
	}
	for uri, opts := range map[string]wamp.Dict{
		"p.plain":      nil,
		"p.exact":      {"match": "exact"},
		"p.prefix":     {"match": "prefix"},
		"p.roundrobin": {"invoke": "roundrobin"},
	} {
		if err := h.Register(uri, answer, opts); err != nil {
			t.Fatal(err)
		}
	}
	for uri, want := range map[string]bool{"p.plain": true, "p.exact": true, "p.prefix": false, "p.roundrobin": false, "p.none": false} {
		p, ok := h.Serve(uri)
		if ok != want {
			t.Errorf("Serve(%q) = %v, want %v", uri, ok, want)
			continue
		}
		if !ok {
			continue
		}
		if reg, _ := c.RegistrationID(uri); p.Registration != reg || reg == 0 {
			t.Errorf("Serve(%q).Registration = %v, want %v", uri, p.Registration, reg)
		}
		if got := p.Handler(p.Ctx, &wamp.Invocation{}); len(got.Args) != 1 || got.Args[0] != "ok" {
			t.Errorf("Serve(%q) handler answered %v", uri, got)
		}
		h.Served()
	}

	p, ok := h.Serve("p.plain")
	if !ok {
		t.Fatal("Serve(p.plain) refused before End")
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		h.End()
	}()
	<-p.Ctx.Done() // End cancels the calls being served first
	if _, ok := h.Serve("p.plain"); ok {
		t.Error("Serve accepted a call after End began")
	}
	if !c.Connected() {
		t.Error("End closed the session before the call being served was answered")
	}
	h.Served()
	<-ended
	if c.Connected() {
		t.Error("End did not close the session")
	}
}
