// This file holds the WAMP JSON convention on a JSON link: payload values
// are normalised on the way in (binary strings, NUL + base64, become
// []byte) and binary values take the JSON form on the way out.

package platformtest

import (
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wirevalue"
)

// normalizeJSONInbound applies the WAMP JSON binary convention and the
// value normalisation to the payload of a decoded JSON message.
func normalizeJSONInbound(msg wamp.Message) {
	switch m := msg.(type) {
	case *wamp.Publish:
		m.Arguments, m.ArgumentsKw = wirevalue.List(m.Arguments, true), wirevalue.Dict(m.ArgumentsKw, true)
	case *wamp.Call:
		m.Arguments, m.ArgumentsKw = wirevalue.List(m.Arguments, true), wirevalue.Dict(m.ArgumentsKw, true)
	case *wamp.Yield:
		m.Arguments, m.ArgumentsKw = wirevalue.List(m.Arguments, true), wirevalue.Dict(m.ArgumentsKw, true)
	case *wamp.Error:
		m.Arguments, m.ArgumentsKw = wirevalue.List(m.Arguments, true), wirevalue.Dict(m.ArgumentsKw, true)
	}
}

// jsonOutbound returns msg with binary payload values in their JSON form.
// Messages are shared between subscribers, so payload-carrying messages
// are copied, never changed.
func jsonOutbound(msg wamp.Message) wamp.Message {
	switch m := msg.(type) {
	case *wamp.Event:
		c := *m
		c.Arguments, c.ArgumentsKw = jsonList(m.Arguments), jsonDict(m.ArgumentsKw)
		return &c
	case *wamp.Result:
		c := *m
		c.Arguments, c.ArgumentsKw = jsonList(m.Arguments), jsonDict(m.ArgumentsKw)
		return &c
	case *wamp.Invocation:
		c := *m
		c.Arguments, c.ArgumentsKw = jsonList(m.Arguments), jsonDict(m.ArgumentsKw)
		return &c
	case *wamp.Error:
		c := *m
		c.Arguments, c.ArgumentsKw = jsonList(m.Arguments), jsonDict(m.ArgumentsKw)
		return &c
	}
	return msg
}

func jsonList(l wamp.List) wamp.List {
	if l == nil {
		return nil
	}
	return wirevalue.ForJSON([]any(l)).([]any)
}

func jsonDict(d wamp.Dict) wamp.Dict {
	if d == nil {
		return nil
	}
	return wirevalue.ForJSON(map[string]any(d)).(map[string]any)
}
