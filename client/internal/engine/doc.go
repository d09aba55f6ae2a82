// Package engine is the client's WAMP session engine: it dials the router
// over WebSocket (msgpack or JSON), joins a realm (WAMP-CRA, ticket or
// anonymous authentication), and runs one session: one reader at a time
// dispatching every message (the caller waiting for its answer, or the
// session's goroutine when nobody waits), the requests waiting for an
// answer, the subscriptions' events and the invocations of registered
// procedures, keepalive, and GOODBYE. Writers queued behind each other
// reach the socket in one write. A request the link ended around fails
// with ErrNotSent when it was never written and ErrOutcomeUnknown when it
// was.
//
// It has its own WAMP messages and codec (codec.go: msgpack and JSON, for
// every message it sends and receives) rather than the nexus client, which
// panics when a router answers without a subprotocol, can lose an EVENT or
// INVOCATION that arrives right behind SUBSCRIBED or REGISTERED, takes no
// ctx per operation and has no reconnect; and rather than nexus's message
// types and serializers, whose reflection codec (ugorji) with what it
// brings in (net/rpc, encoding/gob, text/template, html/template) more than
// doubled the size of a device program. nexus's serializers remain the
// reference the codec is tested and fuzzed against. Integer widths are
// explicit (int64, uint64, uint32), so that 32-bit devices (arm, 386,
// mipsle) read and write the same values as 64-bit ones.
//
// A Session never reconnects and knows nothing of its owner. The owner (the
// client's supervisor) keeps its subscriptions (Topic) and registrations
// (Procedure) across sessions, hands them to every new Session, and learns
// of the session's end through Done and Err. Values cross the boundary in
// wire form: []any, map[string]any and the scalars of the client's encoder;
// refusals as *Error.
package engine
