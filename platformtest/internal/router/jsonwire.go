// This file holds the WAMP JSON convention on a JSON link: payload values
// are normalised on the way in (binary strings, NUL + base64, become
// []byte) and binary values take the JSON form on the way out.

package router

import (
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/nexuspayload"
	"github.com/flockgo/ironflock/internal/wirevalue"
)

// normalizeJSONInbound applies the WAMP JSON binary convention and the
// value normalisation to the payload of a decoded JSON message.
func normalizeJSONInbound(msg wamp.Message) {
	if args, kwargs, ok := nexuspayload.Of(msg); ok {
		*args, *kwargs = wirevalue.List(*args, true), wirevalue.Dict(*kwargs, true)
	}
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
