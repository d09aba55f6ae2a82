// This file holds the reference the codec is tested against: nexus's
// serializers, with the SDK's value normalisation, and the conversion of
// the engine's messages to nexus's.

package engine

import (
	"bytes"
	"encoding/base64"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/internal/nexuspayload"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
)

// nexusSer is nexus's serializer of a format.
func nexusSer(json bool) serialize.Serializer {
	if json {
		return &serialize.JSONSerializer{}
	}
	return &serialize.MessagePackSerializer{}
}

// format names a format in test names.
func format(json bool) string {
	if json {
		return "json"
	}
	return "msgpack"
}

// toNexus returns m as nexus's message; nil for an abort or otherMsg.
func toNexus(m message) wamp.Message {
	switch x := m.(type) {
	case *helloMsg:
		return &wamp.Hello{Realm: wamp.URI(x.Realm), Details: x.Details}
	case *welcomeMsg:
		return &wamp.Welcome{ID: wamp.ID(x.ID), Details: x.Details}
	case *challengeMsg:
		return &wamp.Challenge{AuthMethod: x.AuthMethod, Extra: x.Extra}
	case *authenticateMsg:
		return &wamp.Authenticate{Signature: x.Signature, Extra: x.Extra}
	case *goodbyeMsg:
		return &wamp.Goodbye{Details: x.Details, Reason: wamp.URI(x.Reason)}
	case *errorMsg:
		return &wamp.Error{Type: wamp.MessageType(x.Type), Request: wamp.ID(x.Request), Details: x.Details, Error: wamp.URI(x.Error), Arguments: x.Args, ArgumentsKw: x.Kwargs}
	case *publishMsg:
		return &wamp.Publish{Request: wamp.ID(x.Request), Options: x.Options, Topic: wamp.URI(x.Topic), Arguments: x.Args, ArgumentsKw: x.Kwargs}
	case *publishedMsg:
		return &wamp.Published{Request: wamp.ID(x.Request), Publication: wamp.ID(x.Publication)}
	case *subscribeMsg:
		return &wamp.Subscribe{Request: wamp.ID(x.Request), Options: x.Options, Topic: wamp.URI(x.Topic)}
	case *subscribedMsg:
		return &wamp.Subscribed{Request: wamp.ID(x.Request), Subscription: wamp.ID(x.Subscription)}
	case *unsubscribeMsg:
		return &wamp.Unsubscribe{Request: wamp.ID(x.Request), Subscription: wamp.ID(x.Subscription)}
	case *unsubscribedMsg:
		return &wamp.Unsubscribed{Request: wamp.ID(x.Request)}
	case *eventMsg:
		return &wamp.Event{Subscription: wamp.ID(x.Subscription), Publication: wamp.ID(x.Publication), Details: x.Details, Arguments: x.Args, ArgumentsKw: x.Kwargs}
	case *callMsg:
		return &wamp.Call{Request: wamp.ID(x.Request), Options: x.Options, Procedure: wamp.URI(x.Procedure), Arguments: x.Args, ArgumentsKw: x.Kwargs}
	case *cancelMsg:
		return &wamp.Cancel{Request: wamp.ID(x.Request), Options: x.Options}
	case *resultMsg:
		return &wamp.Result{Request: wamp.ID(x.Request), Details: x.Details, Arguments: x.Args, ArgumentsKw: x.Kwargs}
	case *registerMsg:
		return &wamp.Register{Request: wamp.ID(x.Request), Options: x.Options, Procedure: wamp.URI(x.Procedure)}
	case *registeredMsg:
		return &wamp.Registered{Request: wamp.ID(x.Request), Registration: wamp.ID(x.Registration)}
	case *unregisterMsg:
		return &wamp.Unregister{Request: wamp.ID(x.Request), Registration: wamp.ID(x.Registration)}
	case *unregisteredMsg:
		return &wamp.Unregistered{Request: wamp.ID(x.Request)}
	case *invocationMsg:
		return &wamp.Invocation{Request: wamp.ID(x.Request), Registration: wamp.ID(x.Registration), Details: x.Details, Arguments: x.Args, ArgumentsKw: x.Kwargs}
	case *interruptMsg:
		return &wamp.Interrupt{Request: wamp.ID(x.Request), Options: x.Options}
	case *yieldMsg:
		return &wamp.Yield{Request: wamp.ID(x.Request), Options: x.Options, Arguments: x.Args, ArgumentsKw: x.Kwargs}
	}
	return nil
}

// dicts returns pointers to the dictionaries of msg other than its
// keyword arguments.
func dicts(msg wamp.Message) []*wamp.Dict {
	switch m := msg.(type) {
	case *wamp.Hello:
		return []*wamp.Dict{&m.Details}
	case *wamp.Welcome:
		return []*wamp.Dict{&m.Details}
	case *wamp.Challenge:
		return []*wamp.Dict{&m.Extra}
	case *wamp.Authenticate:
		return []*wamp.Dict{&m.Extra}
	case *wamp.Goodbye:
		return []*wamp.Dict{&m.Details}
	case *wamp.Error:
		return []*wamp.Dict{&m.Details}
	case *wamp.Publish:
		return []*wamp.Dict{&m.Options}
	case *wamp.Subscribe:
		return []*wamp.Dict{&m.Options}
	case *wamp.Event:
		return []*wamp.Dict{&m.Details}
	case *wamp.Call:
		return []*wamp.Dict{&m.Options}
	case *wamp.Cancel:
		return []*wamp.Dict{&m.Options}
	case *wamp.Result:
		return []*wamp.Dict{&m.Details}
	case *wamp.Register:
		return []*wamp.Dict{&m.Options}
	case *wamp.Invocation:
		return []*wamp.Dict{&m.Details}
	case *wamp.Interrupt:
		return []*wamp.Dict{&m.Options}
	case *wamp.Yield:
		return []*wamp.Dict{&m.Options}
	}
	return nil
}

// normalize brings what nexus decoded to the SDK's value types: payloads
// with the binary convention of JSON when fromJSON is set, every other
// dictionary without it.
func normalize(msg wamp.Message, fromJSON bool) {
	if args, kwargs, ok := nexuspayload.Of(msg); ok {
		*args, *kwargs = wirevalue.List(*args, fromJSON), wirevalue.Dict(*kwargs, fromJSON)
	}
	for _, d := range dicts(msg) {
		*d = wirevalue.Dict(*d, false)
	}
}

// forJSON applies the WAMP JSON conventions to what a nexus message
// carries, as the SDK writes it and the router sends it: binary as NUL +
// base64, non-finite floats as null.
func forJSON(msg wamp.Message) {
	if args, kwargs, ok := nexuspayload.Of(msg); ok {
		*args, *kwargs = wirevalue.ForJSONList(*args), wirevalue.ForJSONDict(*kwargs)
	}
	for _, d := range dicts(msg) {
		*d = wirevalue.ForJSONDict(*d)
	}
}

// nexusRead is the reference reader: nexus's serializer, then the SDK's
// normalisation.
func nexusRead(b []byte, json bool) (wamp.Message, error) {
	msg, err := nexusSer(json).Deserialize(b)
	if err != nil {
		return nil, err
	}
	normalize(msg, json)
	return msg, nil
}

// nexusWrite is nexus's encoding of msg, in JSON after the JSON
// conventions, which it applies to msg.
func nexusWrite(msg wamp.Message, json bool) ([]byte, error) {
	if json {
		forJSON(msg)
	}
	return nexusSer(json).Serialize(msg)
}

// checkWrite encodes m with the engine and checks that nexus reads back
// the values m carries (expected).
func checkWrite(t testing.TB, m message, json bool) {
	t.Helper()
	ours, err := encode(nil, json, m)
	if err != nil {
		t.Fatalf("%s %#v: %v", format(json), m, err)
	}
	want := expected(toNexus(m), json)
	got, err := nexusRead(ours, json)
	if err != nil {
		t.Fatalf("nexus cannot read the engine's %s %q: %v", format(json), ours, err)
	}
	if diff := diffMsg(want, got); diff != "" {
		t.Fatalf("%s %q (-sent +read by nexus):\n%s", format(json), ours, diff)
	}
}

// expected returns what a reader of msg's encoding gets: its values in
// normal form, nil for a nil container, and in JSON non-finite floats as
// nil, float32 values as the float64 of their shortest decimal, invalid
// UTF-8 replaced, binary values outside the payload as the strings of the
// convention, and strings of that form in the payload as binary values.
func expected(msg wamp.Message, json bool) wamp.Message {
	if args, kwargs, ok := nexuspayload.Of(msg); ok {
		// Trailing payload elements that are empty are left out.
		switch wire.PayloadElems(*args, *kwargs) {
		case 0:
			*args, *kwargs = nil, nil
		case 1:
			*kwargs = nil
		}
		if *args != nil {
			*args = expectedValue([]any(*args), json, true).([]any)
		}
		if *kwargs != nil {
			*kwargs = expectedValue(map[string]any(*kwargs), json, true).(map[string]any)
		}
	}
	for _, d := range dicts(msg) {
		if *d != nil {
			*d = expectedValue(map[string]any(*d), json, false).(map[string]any)
		}
	}
	return msg
}

func expectedValue(v any, json, inPayload bool) any {
	switch x := v.(type) {
	case []byte:
		switch {
		case x == nil:
			return nil
		case json && !inPayload:
			return "\x00" + base64.StdEncoding.EncodeToString(x)
		}
		return bytes.Clone(x)
	case float64:
		if json && (math.IsNaN(x) || math.IsInf(x, 0)) {
			return nil
		}
		return x
	case float32:
		if json {
			f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
			return f
		}
		return float64(x)
	case []any:
		if x == nil {
			return nil
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = expectedValue(e, json, inPayload)
		}
		return l
	case map[string]any:
		if x == nil {
			return nil
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[expectedKey(k, json)] = expectedValue(e, json, inPayload)
		}
		return m
	case string:
		if !json {
			return x
		}
		// The convention cannot tell a string of its form from a binary.
		if b, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(x, "\x00")); inPayload && err == nil && strings.HasPrefix(x, "\x00") {
			return b
		}
		return string([]rune(x)) // U+FFFD for each invalid byte
	}
	return wirevalue.Normalize(v, false)
}

// expectedKey is a map key as read back: in JSON, valid UTF-8.
func expectedKey(k string, json bool) string {
	if json {
		return string([]rune(k))
	}
	return k
}

// checkRead encodes msg with nexus and checks that the engine reads it as
// nexus does, twice through one key cache (the second time, its keys come
// from the cache).
func checkRead(t testing.TB, msg wamp.Message, json bool, keys *keyCache) {
	t.Helper()
	b, err := nexusWrite(msg, json)
	if err != nil {
		t.Fatalf("nexus cannot write %#v: %v", msg, err)
	}
	want, err := nexusRead(b, json)
	if err != nil {
		// nexus's JSON writer loses the fraction of large integral floats
		// (1e20 comes out as an integer beyond uint64): nothing a router
		// sends.
		if json {
			return
		}
		t.Fatalf("nexus cannot read its own %s %q: %v", format(json), b, err)
	}
	for range 2 {
		got, err := decode(b, json, keys, nil)
		if err != nil {
			t.Fatalf("%s %q: %v", format(json), b, err)
		}
		if diff := diffMsg(want, toNexus(got)); diff != "" {
			t.Fatalf("%s %q (-nexus +engine):\n%s", format(json), b, diff)
		}
	}
}

// diffMsg returns the differences between two messages, NaNs equal:
// reflect.DeepEqual first, which is fast on large values, and cmp only
// when it sees a difference (a NaN among them).
func diffMsg(want, got wamp.Message) string {
	if reflect.DeepEqual(want, got) {
		return ""
	}
	return cmp.Diff(want, got, cmpopts.EquateNaNs())
}
