// This file holds the errors of the package: AccessError with its codes,
// ErrClosed, the mapping of the platform's refusals to codes (docs/wire.md
// §7.12) and the operation wrapper every method returns.

package crossapp

import (
	"errors"
	"fmt"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// The codes of AccessError.
const (
	// CodeNoGrant: the project user has not granted the access (or took
	// it back), or List and ConnectAll were used without the wildcard
	// grant; sys.appaccess.error.no_grant.
	CodeNoGrant = "NO_GRANT"
	// CodeProviderNotInstalled: the provider has no data backend in the
	// project, or none in the requested stage;
	// sys.appaccess.error.provider_not_installed, or an answer without the
	// stage or the provider's key.
	CodeProviderNotInstalled = "PROVIDER_NOT_INSTALLED"
	// CodeUnknownApp: no app has that name; sys.appaccess.error.unknown_app.
	CodeUnknownApp = "UNKNOWN_APP"
	// CodePrivateTable: the provider does not share the table, or the
	// read is not available on it (a series of a transform). Decided by
	// the SDK before sending anything.
	CodePrivateTable = "PRIVATE_TABLE"
	// CodeNotAuthorized: the platform refused the consumer: its credential
	// on the provider's realm (the legacy credential is always refused
	// there), or an operation on it (wamp.error.not_authorized,
	// authorization_failed, authentication_failed, no_auth_method).
	CodeNotAuthorized = "NOT_AUTHORIZED"
	// CodeSecretColumn: the query filters on, selects, aggregates or
	// groups by a column the provider's catalog marks secret. Decided by
	// the SDK before sending anything.
	CodeSecretColumn = "SECRET_COLUMN"
)

// AccessError is a refusal of cross-app access: a stable Code to branch on,
// the provider App, and a human-readable Reason, which is not stable. For
// a refusal of the platform the Reason reads "<error URI>: <payload as
// compact JSON>" and Unwrap gives the *client.WampError.
type AccessError struct {
	Code   string
	App    string // the provider, as the caller or the platform named it
	Reason string
	err    error
}

// Error reads "CODE: reason".
func (e *AccessError) Error() string {
	if e.Reason == "" {
		return e.Code
	}
	return e.Code + ": " + e.Reason
}

// Is matches another *AccessError by code:
// errors.Is(err, &crossapp.AccessError{Code: crossapp.CodeNoGrant}).
func (e *AccessError) Is(target error) bool {
	t, ok := target.(*AccessError)
	return ok && t.Code == e.Code
}

// Unwrap returns the platform's refusal the error was mapped from, if any.
func (e *AccessError) Unwrap() error { return e.err }

// CodeOf returns the code of the *AccessError in err's chain, or "".
func CodeOf(err error) string {
	var e *AccessError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// ErrClosed reports an operation on a handle that was closed, by Close or
// because the client stopped.
var ErrClosed = errors.New("provider handle closed")

// accessErr builds an AccessError decided by the SDK.
func accessErr(code, app, format string, a ...any) *AccessError {
	return &AccessError{Code: code, App: app, Reason: fmt.Sprintf(format, a...)}
}

// codeOfURI maps a refusal URI to its code, or "" (docs/wire.md §7.12).
func codeOfURI(uri string) string {
	switch uri {
	case wire.ErrAppAccessNoGrant:
		return CodeNoGrant
	case wire.ErrAppAccessUnknownApp:
		return CodeUnknownApp
	case wire.ErrAppAccessNotInstalled:
		return CodeProviderNotInstalled
	case wire.ErrNotAuthorized, wire.ErrAuthorizationFailed, wire.ErrAuthenticationFailed, wire.ErrNoAuthMethod:
		return CodeNotAuthorized
	}
	return ""
}

// mapRefusal turns a refusal of the platform carried by err into an
// *AccessError for app; other errors, unmapped refusals included, are
// returned unchanged.
func mapRefusal(app string, err error) error {
	var we *client.WampError
	if CodeOf(err) != "" || !errors.As(err, &we) {
		return err
	}
	code := codeOfURI(we.URI)
	if code == "" {
		return err
	}
	return &AccessError{Code: code, App: app, Reason: we.Error(), err: we}
}

// isDenial reports a join refused because of who the client is: the
// refusals the platform gives a credential it does not admit.
func isDenial(err error) bool { return codeOfURI(client.WampURI(err)) == CodeNotAuthorized }

// opError wraps err in the operation error every method returns, naming
// op and uri (the provider, the table or the procedure). An error of
// package client is relabelled: its URI and reason are kept, with
// refusals mapped to codes. Errors wrapped around one are kept whole.
func opError(op, uri, app string, err error) error {
	if err == nil {
		return nil
	}
	if oe, ok := err.(*client.OpError); ok {
		if oe.Op == op {
			return err
		}
		uri, err = oe.URI, oe.Err
	}
	return &client.OpError{Op: op, URI: uri, Err: mapRefusal(app, err)}
}
