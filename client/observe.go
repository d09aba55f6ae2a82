// This file holds the observation hooks of a Client (docs/observability.md):
// WithHooks, the small optional interfaces a hook implements, and the
// description of an operation they receive. The model is franz-go's
// kgo.WithHooks: a hook is any value, and the client calls each of the
// interfaces below that it implements. Exporters (the OpenTelemetry module
// of this repository, a Prometheus one) are hooks living in modules of
// their own, so that a device program links none of their code.

package client

import (
	"context"
	"strings"
	"time"
)

// Hook is a value given to WithHooks: it implements any number of the Hook*
// interfaces of this package (HookDialStart, HookPublish, …), and the
// client calls each one it implements. A value implementing none is
// refused by New.
//
// Hooks run synchronously on the goroutine doing the work (a caller's,
// the reader's, the supervisor's): they must return quickly, never block,
// and never call the Client.
type Hook = any

// HookDialStart is told of every connection attempt, before it dials.
type HookDialStart interface{ OnDialStart(url string) }

// HookDialDone is told how a connection attempt (dial and join) ended:
// err is nil once the session is joined.
type HookDialDone interface {
	OnDialDone(url string, took time.Duration, err error)
}

// HookJoin is told of every session announced (joined, its subscriptions
// and registrations restored); reconnect reports whether it follows an
// earlier one.
type HookJoin interface {
	OnJoin(realm string, session uint64, reconnect bool)
}

// HookLeave is told of every announced session that ended, and why
// (ErrStopped when Stop ended it).
type HookLeave interface {
	OnLeave(realm string, session uint64, reason error)
}

// HookStateChange is told of every change of the connection state. It runs
// while the client's state lock is held, so changes arrive in order.
type HookStateChange interface{ OnStateChange(from, to State) }

// HookKeepalive gets the round trip of every keepalive ping the router
// answered (pings are sent only on an idle link).
type HookKeepalive interface{ OnKeepalive(rtt time.Duration) }

// HookSendStart is told of a publish, append or call before the client
// waits for a session and sends it; the context it returns is the one the
// operation goes on with (its trace context travels in the message when
// WithTracePropagation is set) and the one the matching HookPublish,
// HookAppend or HookCall receives. An exporter starts its span here.
type HookSendStart interface {
	OnSendStart(ctx context.Context, op Op) context.Context
}

// HookPublish is told of every acknowledged publication (Publish,
// PublishToTable, PublishRowsToTable) once the router answered or it
// failed: ctx is the one HookSendStart returned.
type HookPublish interface {
	OnPublish(ctx context.Context, op Op, out Outcome)
}

// HookAppend is told of every append (AppendToTable, AppendRowsToTable)
// once the data backend answered or it failed.
type HookAppend interface {
	OnAppend(ctx context.Context, op Op, out Outcome)
}

// HookCall is told of every other call (Call, CallDeviceFunction, reads of
// the data backend, …) once it was answered or failed.
type HookCall interface {
	OnCall(ctx context.Context, op Op, out Outcome)
}

// HookProcessStart is told of an event or an invocation before its handler
// runs; ctx continues the trace the message carried (with
// WithTracePropagation), and the context it returns is the handler's.
type HookProcessStart interface {
	OnProcessStart(ctx context.Context, op Op) context.Context
}

// HookEvent is told of every event a handler returned from.
type HookEvent interface {
	OnEvent(ctx context.Context, op Op, d Delivery)
}

// HookInvocation is told of every invocation served (answered with a
// result or an error).
type HookInvocation interface {
	OnInvocation(ctx context.Context, op Op, out Outcome)
}

// HookRefusal is told of every refusal of the router or a callee: an
// operation answered with an ERROR whose URI is uri. It comes besides the
// operation's own hook.
type HookRefusal interface{ OnRefusal(op Op, uri string) }

// OpKind is the kind of an operation the traffic hooks report.
type OpKind uint8

// The kinds of operation.
const (
	OpPublish    OpKind = iota + 1 // an acknowledged publication
	OpAppend                       // an append: a call the data backend answers once stored
	OpCall                         // any other call
	OpEvent                        // an event delivered to a handler
	OpInvocation                   // an invocation served by a handler
)

var opKindNames = [...]string{"", "publish", "append", "call", "event", "invocation"}

// String returns the kind's name: publish, append, call, event, invocation.
func (k OpKind) String() string {
	if int(k) < len(opKindNames) {
		return opKindNames[k]
	}
	return "unknown"
}

// Op describes an operation for the traffic hooks.
type Op struct {
	Kind OpKind
	// Method is the client method that made it (Publish, AppendToTable,
	// Call, …); "" for events and invocations.
	Method string
	// URI is the topic or procedure, as sent: it may hold device keys.
	URI string
	// Template is URI with every segment made of digits (swarm, app and
	// device keys) replaced by "{key}": what a metric may be labeled with
	// without its series growing with the fleet.
	Template string
	// Table is the table written or read, for the operations of the data
	// backend; "" otherwise.
	Table string
}

// Outcome is how an operation ended.
type Outcome struct {
	// Bytes is the size of the message sent (a PUBLISH, a CALL) as
	// encoded; 0 when nothing was sent, and for an invocation.
	Bytes int
	// Latency is from the start of the operation (HookSendStart) to its
	// answer, the wait for a session included; for an invocation, the
	// handler's run.
	Latency time.Duration
	// Err is the operation's error; nil on success.
	Err error
}

// Delivery is how an event reached its handler.
type Delivery struct {
	// Queued is the number of events still waiting for the handler when
	// it started on this one.
	Queued int
	// Lag is how long the event waited between its arrival on the link
	// and its handler's start; Took how long the handler ran.
	Lag, Took time.Duration
}

// Template returns uri with every segment made of digits replaced by
// "{key}" (see Op.Template).
func Template(uri string) string {
	var b strings.Builder
	start := 0
	for i := 0; i <= len(uri); i++ {
		if i < len(uri) && uri[i] != '.' {
			continue
		}
		seg := uri[start:i]
		if start > 0 {
			b.WriteByte('.')
		}
		if digits(seg) {
			b.WriteString("{key}")
		} else {
			b.WriteString(seg)
		}
		start = i + 1
	}
	return b.String()
}

func digits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// WithHooks adds observation hooks: each value implements any of the
// Hook* interfaces. Several WithHooks add up.
func WithHooks(hooks ...Hook) Option {
	return func(s *settings) {
		for _, h := range hooks {
			if !s.hooks.add(h) {
				s.errs = append(s.errs, errNoHook(h))
			}
		}
	}
}
