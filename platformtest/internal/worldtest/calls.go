package worldtest

import (
	"errors"
	"testing"

	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
)

// CallResult is a call's answer: its arguments (normalised) or its error.
type CallResult struct {
	Args     []any          // the RESULT's arguments
	Progress [][]any        // the arguments of each progressive RESULT
	ErrURI   string         // the ERROR's URI; "": none
	ErrArgs  []any          // the ERROR's arguments
	ErrKw    map[string]any // the ERROR's keyword arguments
}

// Call calls uri on c with args [arg] (none when arg is nil) and kwargs.
func Call(t *testing.T, c *client.Client, uri string, arg any, kwargs map[string]any, progress bool) CallResult {
	t.Helper()
	var args wamp.List
	if arg != nil {
		args = wamp.List{arg}
	}
	return CallArgs(t, c, uri, args, kwargs, progress)
}

// CallArgs calls uri on c with args and kwargs, asking for progressive
// results when progress is set.
func CallArgs(t *testing.T, c *client.Client, uri string, args wamp.List, kwargs map[string]any, progress bool) CallResult {
	t.Helper()
	var res CallResult
	var cb client.ProgressHandler
	if progress {
		cb = func(r *wamp.Result) { res.Progress = append(res.Progress, wirevalue.CloneList(r.Arguments)) }
	}
	r, err := c.Call(Ctx(t), uri, nil, args, kwargs, cb)
	if err != nil {
		var re client.RPCError
		if !errors.As(err, &re) {
			t.Fatalf("call %s: %v", uri, err)
		}
		res.ErrURI, res.ErrArgs, res.ErrKw = string(re.Err.Error), wirevalue.CloneList(re.Err.Arguments), wirevalue.CloneDict(re.Err.ArgumentsKw)
		return res
	}
	res.Args = wirevalue.CloneList(r.Arguments)
	return res
}

// OK fails the test unless the call succeeded.
func (r CallResult) OK(t *testing.T, what string) CallResult {
	t.Helper()
	if r.ErrURI != "" {
		t.Fatalf("%s: %s %v %v", what, r.ErrURI, r.ErrArgs, r.ErrKw)
	}
	return r
}

// Refused fails the test unless the call failed with uri.
func (r CallResult) Refused(t *testing.T, what, uri string) CallResult {
	t.Helper()
	if r.ErrURI != uri {
		t.Fatalf("%s: got %q %v (args %v), want %s", what, r.ErrURI, r.ErrArgs, r.Args, uri)
	}
	return r
}

// Rows returns the rows of a plain read answer.
func (r CallResult) Rows(t *testing.T) []map[string]any {
	t.Helper()
	if len(r.Args) == 0 || r.Args[0] == nil {
		return nil
	}
	list, ok := r.Args[0].([]any)
	if !ok {
		t.Fatalf("answer %v is not a list of rows", r.Args)
	}
	out := make([]map[string]any, len(list))
	for i, e := range list {
		out[i] = e.(map[string]any)
	}
	return out
}

// Subscribe subscribes c to topic and returns the events' arguments.
func Subscribe(t *testing.T, c *client.Client, topic string) <-chan []any {
	t.Helper()
	ch := make(chan []any, 64)
	if err := c.Subscribe(topic, func(e *wamp.Event) { ch <- wirevalue.CloneList(e.Arguments) }, nil); err != nil {
		t.Fatalf("subscribe %s: %v", topic, err)
	}
	return ch
}

// NextEvent returns the next event of ch or fails the test.
func NextEvent(t *testing.T, ch <-chan []any, what string) []any {
	t.Helper()
	select {
	case e := <-ch:
		return e
	case <-Ctx(t).Done():
		t.Fatalf("no event: %s", what)
		return nil
	}
}
