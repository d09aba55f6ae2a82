package router

import (
	"testing"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
)

// testPublication is a disclosed publication to topic "t" as the filter
// factory leaves it, and an EVENT of it for subscription sub.
func testPublication(t testing.TB, rt *Router, sub wamp.ID) *wamp.Event {
	t.Helper()
	pub := &wamp.Publish{Request: 1, Topic: "t", Arguments: wamp.List{1.5, "x"}, ArgumentsKw: wamp.Dict{"k": "v"},
		Options: wamp.Dict{wire.OptDiscloseMe: true, publisherKey: &publisherIdent{session: 7, authID: "serial-1", authRole: wire.RoleApp}}}
	if f := rt.publishFilterFactory(pub); f != nil {
		t.Fatalf("a publication without black- or whitelists got filter %v", f)
	}
	if _, kept := pub.Options[publisherKey]; kept {
		t.Fatal("the private publisher option reached nexus")
	}
	return &wamp.Event{Publication: 9, Subscription: sub, Arguments: pub.Arguments, ArgumentsKw: pub.ArgumentsKw, Details: wamp.Dict{}}
}

// TestEventEncodedOncePerForm: the links of one subscription get the same
// encoded EVENT when their details and serialization agree, and their own
// otherwise, with the details each asked for.
func TestEventEncodedOncePerForm(t *testing.T) {
	rt := New(Config{})
	ev := testPublication(t, rt, 3)
	link := func(json, pattern, ident bool) *wsPeer {
		w := newPeer(rt, nil, nil, json)
		w.pubIdentFeature = ident
		if pattern {
			w.patternSubs[3] = true
		}
		return w
	}
	plain := []*wsPeer{link(false, false, false), link(false, false, false), link(false, false, false)}
	var first []byte
	for i, w := range plain {
		b, ok := w.eventOut(ev)
		if !ok {
			t.Fatal("not encoded")
		}
		if i == 0 {
			first = b
		} else if &b[0] != &first[0] {
			t.Errorf("link %d encoded the EVENT again", i)
		}
	}
	decode := func(ser serialize.Serializer, b []byte) wamp.Dict {
		t.Helper()
		m, err := ser.Deserialize(b)
		if err != nil {
			t.Fatal(err)
		}
		e, ok := m.(*wamp.Event)
		if !ok || e.Subscription != 3 || len(e.Arguments) != 2 || e.ArgumentsKw["k"] != "v" {
			t.Fatalf("decoded %#v", m)
		}
		return e.Details
	}
	mp, js := &serialize.MessagePackSerializer{}, &serialize.JSONSerializer{}
	ident := wamp.Dict{"publisher": uint64(7), "publisher_authid": "serial-1", "publisher_authrole": wire.RoleApp}
	cases := []struct {
		name string
		w    *wsPeer
		ser  serialize.Serializer
		want wamp.Dict
	}{
		{"plain", plain[0], mp, wamp.Dict{}},
		{"pattern", link(false, true, false), mp, wamp.Dict{"topic": "t"}},
		{"ident", link(false, false, true), mp, ident},
		{"pattern+ident", link(false, true, true), mp, wamp.Dict{"topic": "t", "publisher": uint64(7),
			"publisher_authid": "serial-1", "publisher_authrole": wire.RoleApp}},
		{"json", link(true, false, true), js, ident},
	}
	seen := map[*byte]string{}
	for _, c := range cases {
		b, ok := c.w.eventOut(ev)
		if !ok {
			t.Fatalf("%s: not encoded", c.name)
		}
		if other, dup := seen[&b[0]]; dup {
			t.Errorf("%s shares the encoding of %s", c.name, other)
		}
		seen[&b[0]] = c.name
		got := decode(c.ser, b)
		if p, ok := got["publisher"]; ok { // msgpack and JSON number types differ
			n, _ := wamp.AsInt64(p)
			got["publisher"] = uint64(n)
		}
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("%s: details (-want +got):\n%s", c.name, diff)
		}
	}
	if n := frames(noteOf(ev)); n != len(cases) {
		t.Errorf("%d encodings kept, want one per form (%d)", n, len(cases))
	}
	if noteOf(&wamp.Event{Arguments: wamp.List{1}}) != nil {
		t.Error("an EVENT of nexus's own (a meta event) has a note")
	}
}

func frames(n *eventNote) int {
	c := 0
	for f := n.frames.Load(); f != nil; f = f.next {
		c++
	}
	return c
}

// TestPublisherIdentificationKeptFromNexus: a network HELLO reaches nexus
// without the subscriber's publisher_identification feature, whatever
// the map types of its details, and the link remembers it.
func TestPublisherIdentificationKeptFromNexus(t *testing.T) {
	rt := New(Config{})
	for _, details := range []wamp.Dict{
		{"roles": wamp.Dict{"subscriber": wamp.Dict{"features": wamp.Dict{wamp.FeaturePubIdent: true}}}},
		{"roles": map[string]any{"subscriber": map[string]any{"features": map[string]any{wamp.FeaturePubIdent: true, "x": true}}}},
	} {
		w := newPeer(rt, nil, nil, false)
		w.noteHello(&wamp.Hello{Details: details})
		if !w.pubIdentFeature {
			t.Errorf("%v: the link forgot the feature", details)
		}
		s := wamp.NewSession(nil, 1, nil, details)
		if s.HasFeature(wamp.RoleSubscriber, wamp.FeaturePubIdent) {
			t.Errorf("%v: nexus still sees the feature", details)
		}
	}
}
