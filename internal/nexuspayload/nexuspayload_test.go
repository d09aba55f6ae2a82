package nexuspayload

import (
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
)

func TestOf(t *testing.T) {
	msgs := []wamp.Message{&wamp.Publish{}, &wamp.Event{}, &wamp.Call{}, &wamp.Invocation{}, &wamp.Yield{}, &wamp.Result{}, &wamp.Error{}}
	for _, m := range msgs {
		args, kwargs, ok := Of(m)
		if !ok {
			t.Fatalf("%s has no payload", m.MessageType())
		}
		*args, *kwargs = wamp.List{1}, wamp.Dict{"k": 2}
	}
	if p := msgs[0].(*wamp.Publish); len(p.Arguments) != 1 || p.ArgumentsKw["k"] != 2 {
		t.Errorf("Of does not point into the message: %+v", p)
	}
	if _, _, ok := Of(&wamp.Subscribe{}); ok {
		t.Error("SUBSCRIBE carries no payload")
	}
}
