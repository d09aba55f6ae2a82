// This file holds the errors of the package: the refusals of the secret
// procedures for errors.Is, ErrUnexpectedAnswer, the hint for a table
// without secret procedures, and how a candidate is kept out of errors.

package secrets

import (
	"errors"
	"fmt"
	"strings"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// Refusals of the secret procedures, matched with errors.Is: each matches
// any *client.WampError with its URI (errors.As gives the WampError with
// the platform's message).
var (
	// ErrRateLimited: the caller used up its calls of the minute (30
	// reveals, 120 verifications); sys.dataservice.error.rate_limited.
	ErrRateLimited error = &client.WampError{URI: wire.ErrRateLimited}
	// ErrSecretColumn: the query filters on a secret column;
	// sys.dataservice.error.secret_column.
	ErrSecretColumn error = &client.WampError{URI: wire.ErrSecretColumn}
	// ErrNotASecretColumn: Verify on a column that is not secret;
	// sys.dataservice.error.not_a_secret_column.
	ErrNotASecretColumn error = &client.WampError{URI: wire.ErrNotASecretColumn}
	// ErrNotAuthorized: the caller is not the app's own container (role
	// app); wamp.error.not_authorized.
	ErrNotAuthorized error = &client.WampError{URI: wire.ErrNotAuthorized}
	// ErrInvalidLimit: a limit outside 1…100;
	// sys.dataservice.error.invalid_limit.
	ErrInvalidLimit error = &client.WampError{URI: wire.ErrInvalidLimit}
)

// ErrUnexpectedAnswer reports an answer of the platform that does not
// have the documented shape.
var ErrUnexpectedAnswer = errors.New("unexpected answer")

// invalidArg reports an argument refused before anything was sent.
func invalidArg(op, what, reason string) error {
	return &client.OpError{Op: op, URI: what, Err: fmt.Errorf("%w: %s", client.ErrInvalidArgument, reason)}
}

// relabel names op in an error of package client (Query.Payload,
// CallData), keeping its URI and reason; a procedure the data backend
// does not serve gets the hint of the secret procedures.
func relabel(op, table string, err error) error {
	var oe *client.OpError
	if !errors.As(err, &oe) {
		return &client.OpError{Op: op, Err: err}
	}
	reason := oe.Err
	if errors.Is(reason, client.ErrNotServed) {
		reason = &notServedError{table: table, err: reason}
	}
	return &client.OpError{Op: op, URI: oe.URI, Err: reason}
}

// notServedError explains a secret procedure the data backend lacks.
type notServedError struct {
	table string
	err   error
}

func (e *notServedError) Error() string {
	return fmt.Sprintf("%v; table %q needs a column with secret: true in the app's data template, and the app's data backend a version that serves secret columns", e.err, e.table)
}

func (e *notServedError) Unwrap() error { return e.err }

// withheldText replaces what the platform sent when it may contain the
// candidate.
const withheldText = "[withheld: it may contain the candidate]"

// withhold keeps the candidate out of an error of Verify: the only text
// of an error that comes from outside the SDK is the platform's payload of
// a refusal, so a *client.WampError whose payload contains the candidate
// is replaced by a copy with those strings withheld, wrapped in a new
// *client.OpError of op and uri. Every other error passes unchanged.
func withhold(op, uri string, err error, candidate string) error {
	var we *client.WampError
	if err == nil || candidate == "" || !errors.As(err, &we) || !holds(we.Args, candidate) && !holds(we.Kwargs, candidate) {
		return err
	}
	red := &client.WampError{URI: we.URI}
	if args, ok := scrub(we.Args, candidate).([]any); ok {
		red.Args = args
	}
	if kwargs, ok := scrub(we.Kwargs, candidate).(map[string]any); ok {
		red.Kwargs = kwargs
	}
	if holds(red.Args, candidate) || holds(red.Kwargs, candidate) { // in a map key
		red.Args, red.Kwargs = []any{withheldText}, nil
	}
	return &client.OpError{Op: op, URI: uri, Err: red}
}

// holds reports whether a wire value contains the candidate in a string.
func holds(v any, candidate string) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, candidate)
	case []byte:
		return strings.Contains(string(x), candidate)
	case []any:
		for _, e := range x {
			if holds(e, candidate) {
				return true
			}
		}
	case map[string]any:
		for k, e := range x {
			if strings.Contains(k, candidate) || holds(e, candidate) {
				return true
			}
		}
	}
	return false
}

// scrub copies a wire value with every string that contains the
// candidate withheld.
func scrub(v any, candidate string) any {
	switch x := v.(type) {
	case string, []byte:
		if holds(x, candidate) {
			return withheldText
		}
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = scrub(e, candidate)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = scrub(e, candidate)
		}
		return out
	}
	return v
}
