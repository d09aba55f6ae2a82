// This file holds the WAMP JSON convention on a JSON link: payload values
// are normalised on the way in (binary strings, NUL + base64, become
// []byte) and binary values take the JSON form on the way out.

package router

import (
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wirevalue"
)

// normalizeJSONInbound applies the WAMP JSON binary convention and the
// value normalisation to the payload of a decoded JSON message.
func normalizeJSONInbound(msg wamp.Message) {
	if args, kwargs, ok := payload(msg); ok {
		*args, *kwargs = wirevalue.List(*args, true), wirevalue.Dict(*kwargs, true)
	}
}

// payload returns the positional and keyword arguments of a message that
// carries a payload (PUBLISH, EVENT, CALL, INVOCATION, YIELD, RESULT,
// ERROR), so that they can be converted in place.
func payload(msg wamp.Message) (*wamp.List, *wamp.Dict, bool) {
	switch m := msg.(type) {
	case *wamp.Publish:
		return &m.Arguments, &m.ArgumentsKw, true
	case *wamp.Event:
		return &m.Arguments, &m.ArgumentsKw, true
	case *wamp.Call:
		return &m.Arguments, &m.ArgumentsKw, true
	case *wamp.Invocation:
		return &m.Arguments, &m.ArgumentsKw, true
	case *wamp.Yield:
		return &m.Arguments, &m.ArgumentsKw, true
	case *wamp.Result:
		return &m.Arguments, &m.ArgumentsKw, true
	case *wamp.Error:
		return &m.Arguments, &m.ArgumentsKw, true
	}
	return nil, nil, false
}

// jsonOutbound returns msg with binary payload values in their JSON form.
// Messages are shared between subscribers, so payload-carrying messages
// are copied, never changed.
func jsonOutbound(msg wamp.Message) wamp.Message {
	switch m := msg.(type) {
	case *wamp.Event:
		c := *m
		c.Arguments, c.ArgumentsKw = wirevalue.ForJSONList(m.Arguments), wirevalue.ForJSONDict(m.ArgumentsKw)
		return &c
	case *wamp.Result:
		c := *m
		c.Arguments, c.ArgumentsKw = wirevalue.ForJSONList(m.Arguments), wirevalue.ForJSONDict(m.ArgumentsKw)
		return &c
	case *wamp.Invocation:
		c := *m
		c.Arguments, c.ArgumentsKw = wirevalue.ForJSONList(m.Arguments), wirevalue.ForJSONDict(m.ArgumentsKw)
		return &c
	case *wamp.Error:
		c := *m
		c.Arguments, c.ArgumentsKw = wirevalue.ForJSONList(m.Arguments), wirevalue.ForJSONDict(m.ArgumentsKw)
		return &c
	}
	return msg
}
