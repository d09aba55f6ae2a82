// This file holds what the engine tells its owner about its work, for the
// client's hooks and Stats: the counters of messages and bytes on the
// links of a client, and the W3C trace context a message carries
// (docs/wire.md §13).

package engine

import (
	"sync/atomic"

	"github.com/flockgo/ironflock/internal/wire"
)

// Counters count the WAMP messages and their bytes (as encoded, without
// the WebSocket framing) written and read by the links that share them.
// The zero value is ready; every field is updated atomically.
type Counters struct {
	MessagesIn, MessagesOut atomic.Uint64
	BytesIn, BytesOut       atomic.Uint64
}

// Trace is a W3C trace context carried by a message: traceparent and
// tracestate, as their headers would hold them. The zero value carries
// none.
type Trace struct{ Parent, State string }

// traceOptions returns base with the trace's keys added, in a new map;
// base itself when tr carries no trace.
func traceOptions(base map[string]any, tr Trace) map[string]any {
	if tr.Parent == "" {
		return base
	}
	m := make(map[string]any, len(base)+2)
	for k, v := range base {
		m[k] = v
	}
	m[wire.OptTraceParent] = tr.Parent
	if tr.State != "" {
		m[wire.OptTraceState] = tr.State
	}
	return m
}

// traceOf reads the trace context from a message's details.
func traceOf(details map[string]any) Trace {
	p, _ := details[wire.OptTraceParent].(string)
	if p == "" {
		return Trace{}
	}
	st, _ := details[wire.OptTraceState].(string)
	return Trace{Parent: p, State: st}
}
