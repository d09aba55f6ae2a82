package platformtest

import (
	"testing"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestAuthorizerRules runs every rule of role app over the wire, on realm
// realm-2-26-dev as device 42. "ok" means the router got the message:
// PUBLISHED, SUBSCRIBED, REGISTERED, a RESULT or an error other than
// not_authorized (a call to nothing answers no_such_procedure).
func TestAuthorizerRules(t *testing.T) {
	f := newFixture(t)
	c := worldtest.JoinInstallation(t, f.p, f.in1, false)
	const refused = wire.ErrNotAuthorized
	pub := func(topic string) wamp.Message {
		return &wamp.Publish{Topic: wamp.URI(topic), Options: wamp.Dict{wire.OptAcknowledge: true}}
	}
	call := func(proc string, args ...any) wamp.Message {
		return &wamp.Call{Procedure: wamp.URI(proc), Options: wamp.Dict{}, Arguments: args}
	}
	sub := func(topic, match string) wamp.Message {
		opts := wamp.Dict{}
		if match != "" {
			opts[wire.OptMatch] = match
		}
		return &wamp.Subscribe{Topic: wamp.URI(topic), Options: opts}
	}
	reg := func(proc string, opts wamp.Dict) wamp.Message {
		if opts == nil {
			opts = wamp.Dict{}
		}
		return &wamp.Register{Procedure: wamp.URI(proc), Options: opts}
	}
	prefix := wamp.Dict{wire.OptMatch: wire.MatchPrefix}
	wildcard := wamp.Dict{wire.OptMatch: wire.MatchWildcard}

	for _, tc := range []struct {
		name string
		msg  wamp.Message
		want string // "" = allowed, else the error URI
	}{
		{"publish own table", pub("2.26.sensordata"), ""},
		{"publish bulk", pub("bulk.2.26.sensordata"), ""},
		{"publish error-logs", pub("2.26.error-logs"), ""},
		{"publish other app of the swarm", pub("2.77.readings"), ""},
		{"publish user topic", pub("my.topic"), ""},
		{"publish other swarm", pub("3.26.sensordata"), refused},
		{"publish wamp", pub("wamp.session.on_join"), refused},
		{"publish transformed", pub("transformed.sensordata"), refused},
		{"publish transformed bulk", pub("transformed.bulk.sensordata"), refused},
		{"publish files.events", pub("files.events"), refused},
		{"publish databackend.errors", pub("databackend.errors.sensordata"), refused},
		{"publish databackend.errors family", pub("databackend.errors"), refused},
		{"publish databackend.errors deeper", pub("databackend.errors.x.y"), refused},
		{"publish databackend.errorsx", pub("databackend.errorsx"), ""},

		{"call session.get", call("wamp.session.get", 1), string(wamp.ErrNoSuchSession)},
		{"call session.list", call("wamp.session.list"), refused},
		{"call registration.lookup", call("wamp.registration.lookup", "x"), refused},
		{"call history", call("history.transformed.sensordata"), wire.ErrNoSuchProcedure},
		{"call append", call("append.2.26.sensordata"), wire.ErrNoSuchProcedure},
		{"call another device", call("2.43.26.DEV.fn"), wire.ErrNoSuchProcedure},
		{"call own swarm other app", call("2.43.77.PROD.fn"), wire.ErrNoSuchProcedure},
		{"call other swarm", call("3.43.26.DEV.fn"), refused},
		{"call location", call(wire.LocationProc, map[string]any{"long": 1.0, "lat": 2.0}), ""},

		{"subscribe transformed", sub("transformed.sensordata", ""), ""},
		{"subscribe transformed bulk", sub("transformed.bulk.sensordata", ""), ""},
		{"subscribe files.events", sub("files.events", ""), ""},
		{"subscribe databackend.errors", sub("databackend.errors.sensordata", ""), ""},
		{"subscribe prefix databackend.errors", sub("databackend.errors.", "prefix"), ""},
		{"subscribe user topic", sub("my.topic", "exact"), ""},
		{"subscribe raw table", sub("2.26.sensordata", ""), refused},
		{"subscribe raw bulk", sub("bulk.2.26.sensordata", ""), refused},
		{"subscribe wamp meta", sub("wamp.session.on_join", ""), refused},
		{"subscribe prefix transformed", sub("transformed.", "prefix"), ""},
		{"subscribe prefix user", sub("my", "prefix"), ""},
		{"subscribe prefix digit", sub("2.26.", "prefix"), refused},
		{"subscribe prefix b", sub("b", "prefix"), refused},
		{"subscribe prefix bulk", sub("bulk", "prefix"), refused},
		{"subscribe prefix bulk.2", sub("bulk.2", "prefix"), refused},
		{"subscribe prefix wa", sub("wa", "prefix"), refused},
		{"subscribe prefix empty", sub("", "prefix"), refused},
		{"subscribe wildcard transformed", sub("transformed.", "wildcard"), ""},
		{"subscribe wildcard empty first", sub(".26.sensordata", "wildcard"), refused},
		{"subscribe wildcard digit first", sub("2..sensordata", "wildcard"), refused},
		{"subscribe wildcard bulk", sub("bulk...sensordata", "wildcard"), refused},
		{"subscribe wildcard wamp", sub("wamp.session.", "wildcard"), refused},
		{"subscribe unknown match", sub("my.topic", "fuzzy"), refused},

		{"register own function", reg("2.42.26.DEV.fn", nil), ""},
		{"register own function lower-case stage", reg("2.42.26.dev.fn2", nil), ""},
		{"register dotted name", reg("2.42.26.DEV.tools.fn", nil), ""},
		{"register invoke single", reg("2.42.26.DEV.single", wamp.Dict{"invoke": "single"}), ""},
		{"register prefix fixing the segments", reg("2.42.26.DEV.", prefix), ""},
		{"register wildcard fixing the segments", reg("2.42.26.DEV.", wildcard), ""},
		{"register another device", reg("2.43.26.DEV.fn", nil), refused},
		{"register another app", reg("2.42.77.DEV.fn", nil), refused},
		{"register another swarm", reg("3.42.26.DEV.fn", nil), refused},
		{"register another stage", reg("2.42.26.PROD.fn", nil), refused},
		{"register without name", reg("2.42.26.DEV", nil), refused},
		{"register user procedure", reg("my.proc", nil), refused},
		{"register wamp", reg("wamp.my.proc", nil), refused},
		{"register prefix open stage", reg("2.42.26.DE", prefix), refused},
		{"register prefix without dot", reg("2.42.26.DEV", prefix), refused},
		{"register wildcard open device", reg("2..26.DEV.fn", wildcard), refused},
		{"register roundrobin", reg("2.42.26.DEV.rr", wamp.Dict{"invoke": "roundrobin"}), refused},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := c.NewReq()
			setRequest(tc.msg, req)
			got := worldtest.ErrorURI(c.Answer(req, tc.msg).Msg)
			if got != tc.want {
				t.Errorf("answer %q, want %q", got, orAllowed(tc.want))
			}
		})
	}
}

func orAllowed(s string) string {
	if s == "" {
		return "allowed"
	}
	return s
}

func setRequest(msg wamp.Message, req wamp.ID) {
	switch m := msg.(type) {
	case *wamp.Publish:
		m.Request = req
	case *wamp.Call:
		m.Request = req
	case *wamp.Subscribe:
		m.Request = req
	case *wamp.Register:
		m.Request = req
	}
}

// TestPublisherDisclosed: events of an app's publication carry
// publisher_authid = the serial, without the app asking for it.
func TestPublisherDisclosed(t *testing.T) {
	f := newFixture(t)
	subscriber := worldtest.Connect(t, f.p, f.in2, client.MSGPACK)
	events := make(chan *wamp.Event, 1)
	if err := subscriber.Subscribe("my.topic", func(e *wamp.Event) { events <- e }, nil); err != nil {
		t.Fatal(err)
	}
	publisher := worldtest.Connect(t, f.p, f.in1, client.JSON)
	if err := publisher.Publish("my.topic", wamp.Dict{wire.OptAcknowledge: true}, wamp.List{1}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-events:
		if e.Details["publisher_authid"] != f.d1.Serial() || e.Details["publisher_authrole"] != wire.RoleApp {
			t.Errorf("event details %v, want publisher_authid %s", e.Details, f.d1.Serial())
		}
	case <-worldtest.Ctx(t).Done():
		t.Fatal("no event")
	}
	// The recording keeps the options the app sent, without disclose_me.
	pubs := f.p.Publications()
	if len(pubs) != 1 || pubs[0].Options[wire.OptDiscloseMe] != nil {
		t.Errorf("recorded publications %+v", pubs)
	}
}
