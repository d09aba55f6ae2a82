// This file holds the errors of the package: Error with its codes, the
// mapping of router refusals and of direct-transfer HTTP failures to
// codes, and the operation wrapper every method returns.

package files

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// The codes of Error. The set is open: a newer server may send a code
// not listed here; it is kept as is, and callers treat it as a generic
// failure.
const (
	// CodeNotAuthorized: the caller may not perform the operation.
	CodeNotAuthorized = wire.FileNotAuthorized
	// CodeNoSuchNamespace: the namespace is not declared in the data
	// template.
	CodeNoSuchNamespace = wire.FileNoSuchNamespace
	// CodeNoSuchObject: the key does not exist.
	CodeNoSuchObject = wire.FileNoSuchObject
	// CodeTooLarge: over a transfer limit (the reason names which one):
	// the inline limit where there are no direct transfers, or the 5 GiB
	// of a single upload.
	CodeTooLarge = wire.FileTooLarge
	// CodeObjectTooLarge: over the namespace's maxObjectBytes.
	CodeObjectTooLarge = wire.FileObjectTooLarge
	// CodeQuotaExceeded: the app's storage budget is spent.
	CodeQuotaExceeded = wire.FileQuotaExceeded
	// CodeContentTypeNotAllowed: the namespace restricts content types.
	CodeContentTypeNotAllowed = wire.FileContentTypeNotAllowed
	// CodeNotSupported: the backend cannot do this (for example presigned
	// URLs on an air-gapped deployment).
	CodeNotSupported = wire.FileNotSupported
	// CodeNotAvailable: the deployment has no file service.
	CodeNotAvailable = wire.FileNotAvailable
	// CodePresignUnreachable: the object store cannot be reached directly,
	// for example behind a proxy that lets only the router through.
	CodePresignUnreachable = wire.FilePresignUnreachable
	// CodeClockSkew: the device's clock is off by more than 15 minutes.
	CodeClockSkew = wire.FileClockSkew
	// CodeInternal: anything else.
	CodeInternal = wire.FileInternal
	// CodeInvalidKey: the key (or list prefix) breaks the key rules.
	CodeInvalidKey = wire.FileInvalidKey
	// CodeInvalidRange: a ranged read starts past the object's end.
	CodeInvalidRange = wire.FileInvalidRange
)

// Error is a failure of the file store: a stable Code to branch on and a
// human-readable Reason, which is not stable. Find it with errors.As or
// CodeOf.
type Error struct {
	Code   string
	Reason string
	err    error // what it was mapped from (a *client.WampError), if anything
}

// Error reads "CODE: reason".
func (e *Error) Error() string {
	if e.Reason == "" {
		return e.Code
	}
	return e.Code + ": " + e.Reason
}

// Is matches another *Error by code:
// errors.Is(err, &files.Error{Code: files.CodeNoSuchObject}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code
}

// Unwrap returns what the error was mapped from, if anything: the
// router's refusal, or client.ErrInvalidArgument for a key refused before
// it was sent.
func (e *Error) Unwrap() error { return e.err }

// CodeOf returns the code of the *Error in err's chain, or "".
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func newError(code, format string, a ...any) *Error {
	return &Error{Code: code, Reason: fmt.Sprintf(format, a...)}
}

// routerError maps what a call of a files.* procedure failed with: no
// such procedure is NOT_AVAILABLE, the router's authorization refusals
// NOT_AUTHORIZED; other errors pass as they are. It strips the client's
// own operation wrapper.
func routerError(err error) error {
	var oe *client.OpError
	if errors.As(err, &oe) {
		err = oe.Err
	}
	var we *client.WampError
	if !errors.As(err, &we) {
		return err
	}
	switch we.URI {
	case wire.ErrNoSuchProcedure:
		return &Error{Code: CodeNotAvailable, Reason: "the file service is not available on this deployment", err: err}
	case wire.ErrNotAuthorized, wire.ErrAuthorizationFailed, wire.ErrAuthenticationFailed:
		return &Error{Code: CodeNotAuthorized, Reason: we.Error(), err: err}
	}
	return err
}

// maxQuoted is how much of an object store's error body a reason quotes.
const maxQuoted = 400

// httpFailure maps an object store's error answer: RequestTimeTooSkewed
// is CLOCK_SKEW, QuotaExceeded QUOTA_EXCEEDED, 401 and 403
// NOT_AUTHORIZED, 404 NO_SUCH_OBJECT, anything else INTERNAL quoting the
// body.
func httpFailure(status int, body []byte) *Error {
	text := quote(body)
	reason := fmt.Sprintf("object store answered %d %s", status, http.StatusText(status))
	if text != "" {
		reason += ": " + text
	}
	switch {
	case strings.Contains(string(body), wire.ClockSkewCode):
		return &Error{Code: CodeClockSkew, Reason: "the device clock is off by more than 15 minutes; " + reason}
	case strings.Contains(string(body), wire.QuotaExceededCode):
		return &Error{Code: CodeQuotaExceeded, Reason: reason}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return &Error{Code: CodeNotAuthorized, Reason: reason}
	case status == http.StatusNotFound:
		return &Error{Code: CodeNoSuchObject, Reason: reason}
	default:
		return &Error{Code: CodeInternal, Reason: reason}
	}
}

// quote returns an object store's error body as text: "Code: Message"
// of an S3 error document, else at most maxQuoted bytes of the body.
func quote(body []byte) string {
	var doc struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	if xml.Unmarshal(body, &doc) == nil && doc.Code != "" {
		body = []byte(strings.TrimSuffix(doc.Code+": "+doc.Message, ": "))
	}
	s := strings.TrimSpace(strings.ToValidUTF8(string(body), "\uFFFD"))
	if len(s) > maxQuoted {
		s = s[:maxQuoted]
		for !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		s += "…"
	}
	return s
}

// transportError maps a failed direct request: the context's error when
// it ended, else what net/http says without the URL, which is a bearer
// secret.
func transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &Error{Code: CodePresignUnreachable, Reason: "object storage is not reachable directly: " + err.Error()}
}

// opError wraps err in the operation error every method returns: it names
// the operation (files.Put), the procedure and the object.
func opError(op, uri, object string, err error) error {
	if err == nil {
		return nil
	}
	var oe *client.OpError
	if errors.As(err, &oe) && oe.Op == op {
		return err
	}
	if object != "" {
		err = &objectError{object: object, err: err}
	}
	return &client.OpError{Op: op, URI: uri, Err: err}
}

// objectError names the object an error concerns.
type objectError struct {
	object string
	err    error
}

func (e *objectError) Error() string { return e.object + ": " + e.err.Error() }
func (e *objectError) Unwrap() error { return e.err }

// checkKey refuses a key, destination or list prefix that is not valid
// UTF-8 before it is sent: the client's encoder would replace the invalid
// bytes with U+FFFD, so that two keys could name one object. The error has
// the code INVALID_KEY and matches client.ErrInvalidArgument. The server
// checks every other key rule.
func checkKey(what, key string) error {
	if utf8.ValidString(key) {
		return nil
	}
	return &Error{Code: CodeInvalidKey, Reason: fmt.Sprintf("%s %q is not valid UTF-8", what, key), err: client.ErrInvalidArgument}
}

// invalidArg reports an argument refused before anything was sent.
func invalidArg(format string, a ...any) error {
	return fmt.Errorf("%w: %s", client.ErrInvalidArgument, fmt.Sprintf(format, a...))
}
