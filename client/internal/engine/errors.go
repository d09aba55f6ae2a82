// This file holds the errors of the engine: the sentinels operations return,
// Error (a WAMP error URI with its payload), and the errors of a session
// whose link ended: Lost, and lost for a request the link ended around.

package engine

import (
	"errors"
	"fmt"
)

// Sentinel errors, matched with errors.Is. The client re-exports them.
var (
	// ErrConnectionLost reports that the link ended during an operation.
	// The error of a request also matches ErrNotSent or ErrOutcomeUnknown,
	// which say whether it reached the link.
	ErrConnectionLost = errors.New("connection lost")
	// ErrNotSent reports a request the link ended before it was written:
	// the router never received it.
	ErrNotSent = errors.New("the request was not sent")
	// ErrOutcomeUnknown reports a request written to the link that ended
	// before the router's answer arrived: the router may or may not have
	// acted on it.
	ErrOutcomeUnknown = errors.New("the outcome is unknown")
	// ErrStopped reports that the owner stopped (Config.Stop was closed) or
	// left the session.
	ErrStopped = errors.New("client stopped")
	// ErrTimeout reports that the router did not answer within
	// Config.ResponseTimeout.
	ErrTimeout = errors.New("no answer from the router in time")
)

// lostError is the error of a request the link ended around. It matches
// ErrConnectionLost and, by sent, ErrNotSent or ErrOutcomeUnknown, and
// unwraps to the reason the link ended.
type lostError struct {
	sent   bool
	reason error // nil when unknown
}

func (e *lostError) Error() string {
	msg := "connection lost before the request was sent"
	if e.sent {
		msg = "connection lost after the request was sent, before the answer: the outcome is unknown"
	}
	if e.reason != nil {
		msg += " (" + e.reason.Error() + ")"
	}
	return msg
}

// Is matches ErrConnectionLost and ErrNotSent or ErrOutcomeUnknown.
func (e *lostError) Is(target error) bool {
	switch target {
	case ErrConnectionLost:
		return true
	case ErrNotSent:
		return !e.sent
	case ErrOutcomeUnknown:
		return e.sent
	}
	return false
}

// Unwrap returns why the link ended.
func (e *lostError) Unwrap() error { return e.reason }

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
func errorFromMessage(m *errorMsg) *Error {
	return &Error{URI: m.Error, Args: m.Args, Kwargs: m.Kwargs}
}

// unexpected reports an answer of the wrong type.
func unexpected(m message, want string) error {
	if e, ok := m.(*errorMsg); ok {
		return errorFromMessage(e)
	}
	return fmt.Errorf("unexpected %s from the router, want %s", m.kind(), want)
}

// Lost returns the error of a session that ended: ErrConnectionLost naming
// the reason, or ErrStopped.
func (s *Session) Lost() error {
	if r := s.l.reason(); r != nil && r != ErrStopped {
		return fmt.Errorf("%w: %v", ErrConnectionLost, r)
	}
	if s.stopped() {
		return ErrStopped
	}
	return ErrConnectionLost
}

// lost returns the error of a request the link ended around: ErrNotSent
// when it was never written, ErrOutcomeUnknown when it was (both match
// ErrConnectionLost), or ErrStopped.
func (s *Session) lost(sent bool) error {
	r := s.l.reason()
	if r == nil || r == ErrStopped {
		if s.stopped() {
			return ErrStopped
		}
		r = nil
	}
	return &lostError{sent: sent, reason: r}
}
