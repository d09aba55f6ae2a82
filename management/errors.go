// This file holds the errors of the API: *Error with the status, the
// stable code and the message of an answer, the codes, and sentinels for
// errors.Is.

package management

import (
	"github.com/flockgo/ironflock/internal/wire"

	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Stable error codes of the API.
const (
	CodeInvalidJSON       = wire.CodeInvalidJSON       // 400
	CodeInvalidQuery      = wire.CodeInvalidQuery      // 400
	CodeUnauthenticated   = wire.CodeUnauthenticated   // 401
	CodeForbidden         = wire.CodeForbidden         // 403
	CodeNotFound          = wire.CodeNotFound          // 404
	CodeMethodNotAllowed  = wire.CodeMethodNotAllowed  // 405
	CodeAlreadyExists     = wire.CodeAlreadyExists     // 409
	CodeAlreadyInstalled  = wire.CodeAlreadyInstalled  // 409
	CodeBuildInProgress   = wire.CodeBuildInProgress   // 409
	CodeNoBuildInProgress = wire.CodeNoBuildInProgress // 409
	CodeNotReleased       = wire.CodeNotReleased       // 409
	CodeReleaseNotReady   = wire.CodeReleaseNotReady   // 409
	CodeInUse             = wire.CodeInUse             // 409
	CodeInherited         = wire.CodeInherited         // 409
	CodeBodyTooLarge      = wire.CodeBodyTooLarge      // 413
	CodeValidation        = wire.CodeValidation        // 422
	CodeInternal          = wire.CodeInternal          // 500
)

// Error is an error answer of the API.
type Error struct {
	Status  int    // HTTP status
	Code    string // stable code, "" when the answer had no API error body
	Message string // the API's human text
}

// Error returns "<status> <code>: <message>".
func (e *Error) Error() string {
	code := e.Code
	if code == "" {
		code = http.StatusText(e.Status)
	}
	return fmt.Sprintf("%d %s: %s", e.Status, code, e.Message)
}

// Is reports whether target is an *Error with the same code (or, for a
// target without a code, the same status): errors.Is(err, ErrNotFound).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	if t.Code != "" {
		return t.Code == e.Code
	}
	return t.Status != 0 && t.Status == e.Status
}

// Sentinels for errors.Is, one per code most callers branch on.
var (
	ErrUnauthenticated   = &Error{Status: http.StatusUnauthorized, Code: CodeUnauthenticated, Message: "unauthenticated"}
	ErrForbidden         = &Error{Status: http.StatusForbidden, Code: CodeForbidden, Message: "forbidden"}
	ErrNotFound          = &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "not found"}
	ErrAlreadyExists     = &Error{Status: http.StatusConflict, Code: CodeAlreadyExists, Message: "already exists"}
	ErrAlreadyInstalled  = &Error{Status: http.StatusConflict, Code: CodeAlreadyInstalled, Message: "already installed"}
	ErrBuildInProgress   = &Error{Status: http.StatusConflict, Code: CodeBuildInProgress, Message: "build in progress"}
	ErrNoBuildInProgress = &Error{Status: http.StatusConflict, Code: CodeNoBuildInProgress, Message: "no build in progress"}
	ErrInUse             = &Error{Status: http.StatusConflict, Code: CodeInUse, Message: "in use"}
	ErrValidation        = &Error{Status: http.StatusUnprocessableEntity, Code: CodeValidation, Message: "validation failed"}
)

// errorFrom builds the error of an answer: the API's JSON body when there
// is one, else the start of the body as text.
func errorFrom(status int, body []byte) *Error {
	var b struct {
		Error string `json:"error"`
		Code  string `json:"code"`
	}
	if json.Unmarshal(body, &b) == nil && b.Code != "" {
		return &Error{Status: status, Code: b.Code, Message: b.Error}
	}
	msg := strings.TrimSpace(string(body))
	if len(msg) > 200 {
		msg = msg[:200]
		for !utf8.ValidString(msg) {
			msg = msg[:len(msg)-1]
		}
		msg += "…"
	}
	if msg == "" {
		msg = http.StatusText(status)
	}
	return &Error{Status: status, Message: msg}
}
