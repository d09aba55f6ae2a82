// Package nexuspayload reaches the payload of nexus's WAMP messages, for
// the code that speaks nexus: the fake platform's router, and the tests
// that hold the SDK's codec to nexus's serializers. The device packages
// never import it (they link no nexus).
package nexuspayload

import "github.com/gammazero/nexus/v3/wamp"

// Of returns the positional and keyword arguments of a message that
// carries a payload (PUBLISH, EVENT, CALL, INVOCATION, YIELD, RESULT,
// ERROR), so that they can be converted in place; false for another
// message.
func Of(msg wamp.Message) (*wamp.List, *wamp.Dict, bool) {
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
