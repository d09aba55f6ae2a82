// This file holds Trace, the W3C trace context a PUBLISH or CALL carries
// under "_traceparent" and "_tracestate" (docs/wire.md §13), and how it
// travels inside the router: nexus builds the details of an EVENT and an
// INVOCATION itself and keeps no option it does not know, so the router
// puts a CALL's trace in the spare slot past the end of its argument list,
// which nexus hands on to the INVOCATION (the list itself, not a copy);
// the link writing the INVOCATION, or the local service serving it, reads
// it there (publications carry theirs in the router's event note).

package realm

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// Trace is a W3C trace context: the traceparent and tracestate values.
type Trace struct{ Parent, State string }

// TraceOfOptions returns the trace context of a message's options or
// details; nil when they carry none.
func TraceOfOptions(opts map[string]any) *Trace {
	p, _ := opts[wire.OptTraceParent].(string)
	if p == "" {
		return nil
	}
	st, _ := opts[wire.OptTraceState].(string)
	return &Trace{Parent: p, State: st}
}

// AddTo sets the trace's keys in details.
func (t *Trace) AddTo(details map[string]any) {
	details[wire.OptTraceParent] = t.Parent
	if t.State != "" {
		details[wire.OptTraceState] = t.State
	}
}

// WithTrace returns a copy of args with t in the slot past its end.
func WithTrace(args wamp.List, t *Trace) wamp.List {
	c := make(wamp.List, len(args)+1)
	copy(c, args)
	c[len(args)] = t
	return c[: len(args) : len(args)+1]
}

// TraceOf returns the trace context WithTrace put past the end of args;
// nil when there is none.
func TraceOf(args wamp.List) *Trace {
	if cap(args) != len(args)+1 {
		return nil
	}
	t, _ := args[:len(args)+1][len(args)].(*Trace)
	return t
}

// Child returns the context of a span continuing t: the same trace id and
// flags, a new random span id, the same tracestate. ok is false when t's
// traceparent is not of W3C version 00 (then nothing continues it).
func (t *Trace) Child() (child Trace, ok bool) {
	parts := strings.Split(t.Parent, "-")
	if len(parts) != 4 || parts[0] != "00" || len(parts[1]) != 32 || len(parts[2]) != 16 || len(parts[3]) != 2 ||
		!isHex(parts[1]) || !isHex(parts[2]) || !isHex(parts[3]) || parts[1] == strings.Repeat("0", 32) {
		return Trace{}, false
	}
	var id [8]byte
	for {
		_, _ = rand.Read(id[:])
		if id != [8]byte{} {
			break
		}
	}
	return Trace{Parent: "00-" + parts[1] + "-" + hex.EncodeToString(id[:]) + "-" + parts[3], State: t.State}, true
}

// TraceID returns the trace id of a traceparent ("" when malformed).
func (t *Trace) TraceID() string {
	parts := strings.Split(t.Parent, "-")
	if len(parts) != 4 {
		return ""
	}
	return parts[1]
}

func isHex(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
