// This file holds the errors of the engine: the sentinels operations return
// and Error, a WAMP error URI with its payload.

package engine

import (
	"errors"
	"fmt"

	"github.com/gammazero/nexus/v3/wamp"
)

// Sentinel errors, matched with errors.Is. The client re-exports them.
var (
	// ErrConnectionLost reports that the link ended while an operation
	// waited for the router's answer.
	ErrConnectionLost = errors.New("connection lost")
	// ErrStopped reports that the owner stopped (Config.Stop was closed) or
	// left the session.
	ErrStopped = errors.New("client stopped")
	// ErrTimeout reports that the router did not answer within
	// Config.ResponseTimeout.
	ErrTimeout = errors.New("no answer from the router in time")
)

// Error is a WAMP error: the URI and payload of an ERROR answer or of the
// ABORT that refused a join. An invocation handler returns one to answer
// with a specific URI.
type Error struct {
	URI    string
	Args   []any
	Kwargs map[string]any
}

// Error returns the URI.
func (e *Error) Error() string { return e.URI }

// errorFromMessage turns an ERROR message into an *Error.
func errorFromMessage(m *wamp.Error) *Error {
	return &Error{URI: string(m.Error), Args: []any(m.Arguments), Kwargs: map[string]any(m.ArgumentsKw)}
}

// unexpected reports an answer of the wrong type.
func unexpected(m wamp.Message, want string) error {
	if e, ok := m.(*wamp.Error); ok {
		return errorFromMessage(e)
	}
	return fmt.Errorf("unexpected %s from the router, want %s", m.MessageType(), want)
}
