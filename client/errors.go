// This file holds the errors of the package: sentinels, WampError, OpError
// and the helpers that build them.

package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/flockgo/ironflock/client/internal/engine"
	"github.com/flockgo/ironflock/internal/wire"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrInvalidArgument reports an argument refused before anything was sent.
	ErrInvalidArgument = errors.New("invalid argument")
	// ErrMissingConfig reports device configuration the operation needs but
	// the environment did not provide (SWARM_KEY, APP_KEY, DEVICE_KEY, …).
	ErrMissingConfig = errors.New("missing configuration")
	// ErrNotConnected reports that no session was available within the wait
	// an operation allows.
	ErrNotConnected = errors.New("not connected")
	// ErrConnectionLost reports that the connection ended during the
	// operation. Every such error of an operation also matches exactly one
	// of ErrNotSent and ErrOutcomeUnknown, which say what the caller may do.
	ErrConnectionLost = engine.ErrConnectionLost
	// ErrNotSent reports an operation the connection ended before it left
	// the client: the router never received it, so sending it again is
	// safe. Operations with a reconnect window (the table operations) send
	// it again on the next session by themselves while the window lasts;
	// the others return it.
	ErrNotSent = engine.ErrNotSent
	// ErrOutcomeUnknown reports an operation written to the connection that
	// ended before the router's answer arrived: it may have taken effect (a
	// row stored, a publication delivered, a procedure run) or not. It is
	// never retried by the client. Retry it only when doing it twice is
	// harmless: an idempotent procedure, or a row of a table with an entity
	// key (maintainLatestFlagFor) sent again with the same tsp, which the
	// data backend refuses with sys.dataservice.error.entity_key_conflict
	// when the first one was stored. Otherwise check first whether it took
	// effect, e.g. by reading the row back with GetHistory. The data
	// backend's refusal sys.dataservice.error.outcome_unknown (its storage
	// lost the answer of the write's commit) matches it too.
	ErrOutcomeUnknown = engine.ErrOutcomeUnknown
	// ErrStopped reports that the client was stopped. Stop is final.
	ErrStopped = engine.ErrStopped
	// ErrCredentialRefused reports that the router refused the credential
	// (wamp.error.authentication_failed) on every attempt for the whole
	// grace (WithAuthFailureGrace): the refusal is final, the client makes
	// no more attempts (state StateRefused) and Start may be called again,
	// e.g. once the credential was fixed. The router's refusal is wrapped:
	// WampURI returns wamp.error.authentication_failed.
	ErrCredentialRefused = errors.New("credential refused")
	// ErrAlreadyStarted reports a second Start.
	ErrAlreadyStarted = errors.New("client already started")
	// ErrTimeout reports that the router did not answer in time.
	ErrTimeout = engine.ErrTimeout
)

// WampError is an error reported by the router or by the peer that served
// the request: a WAMP error URI with its payload. Handlers of device
// functions may return one to answer with a specific URI.
type WampError struct {
	URI    string
	Args   []any
	Kwargs map[string]any
}

// Error renders the URI and the payload as compact JSON.
func (e *WampError) Error() string {
	var b strings.Builder
	b.WriteString(e.URI)
	switch len(e.Args) {
	case 0:
	case 1:
		b.WriteString(": ")
		b.WriteString(compactJSON(e.Args[0]))
	default:
		b.WriteString(": ")
		b.WriteString(compactJSON(e.Args))
	}
	if len(e.Kwargs) > 0 {
		b.WriteString(" ")
		b.WriteString(compactJSON(e.Kwargs))
	}
	return b.String()
}

// Is lets errors.Is match two WampErrors by URI:
// errors.Is(err, &client.WampError{URI: "wamp.error.not_authorized"}).
// The data backend's sys.dataservice.error.outcome_unknown (a write whose
// storage lost the answer of its commit) also matches ErrOutcomeUnknown:
// the rows may be stored.
func (e *WampError) Is(target error) bool {
	if target == ErrOutcomeUnknown {
		return e.URI == wire.ErrOutcomeUnknown
	}
	t, ok := target.(*WampError)
	return ok && t.URI == e.URI
}

// wampError turns a refusal of the engine (an ERROR answer, the ABORT of a
// join) into a *WampError; other errors pass unchanged.
func wampError(err error) error {
	if e, ok := err.(*engine.Error); ok {
		return &WampError{URI: e.URI, Args: e.Args, Kwargs: e.Kwargs}
	}
	return err
}

// compactJSON renders v as compact JSON, or with %v when it cannot.
func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// OpError is the error every operation returns: it names the operation, the
// URI, topic or field it concerned, and wraps the reason (a sentinel, a
// *WampError, a context error, …).
type OpError struct {
	Op  string // "Publish", "Call", "Subscribe", …
	URI string // topic, procedure or the offending field
	Err error
}

// Error reads like: ironflock: Call "com.example.add": wamp.error.no_such_procedure: "…".
func (e *OpError) Error() string {
	if e.URI == "" {
		return "ironflock: " + e.Op + ": " + e.Err.Error()
	}
	return fmt.Sprintf("ironflock: %s %q: %s", e.Op, e.URI, e.Err.Error())
}

// Unwrap returns the reason.
func (e *OpError) Unwrap() error { return e.Err }

// opErr wraps err in an OpError naming op and uri, unless it already names
// op; nil stays nil.
func opErr(op, uri string, err error) error {
	if err == nil {
		return nil
	}
	var oe *OpError
	if errors.As(err, &oe) && oe.Op == op {
		return err
	}
	return &OpError{Op: op, URI: uri, Err: err}
}

// invalidArg reports an argument refused before anything was sent.
func invalidArg(op, what, format string, args ...any) error {
	return &OpError{Op: op, URI: what, Err: fmt.Errorf("%w: %s", ErrInvalidArgument, fmt.Sprintf(format, args...))}
}

// missingConfig reports configuration the operation needs but lacks.
func missingConfig(op, what, format string, args ...any) error {
	return &OpError{Op: op, URI: what, Err: fmt.Errorf("%w: %s", ErrMissingConfig, fmt.Sprintf(format, args...))}
}

// WampURI returns the WAMP error URI carried by err, or "".
func WampURI(err error) string {
	var we *WampError
	if errors.As(err, &we) {
		return we.URI
	}
	return ""
}
