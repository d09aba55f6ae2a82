// This file holds the errors of the API: *Error with the status, the
// stable code and the message of an answer, the codes, and sentinels for
// errors.Is.

package management

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// Stable error codes of the API.
const (
	CodeInvalidJSON       = "INVALID_JSON"         // 400
	CodeInvalidQuery      = "INVALID_QUERY"        // 400
	CodeUnauthenticated   = "UNAUTHENTICATED"      // 401
	CodeForbidden         = "FORBIDDEN"            // 403
	CodeNotFound          = "NOT_FOUND"            // 404
	CodeMethodNotAllowed  = "METHOD_NOT_ALLOWED"   // 405
	CodeAlreadyExists     = "ALREADY_EXISTS"       // 409
	CodeAlreadyInstalled  = "ALREADY_INSTALLED"    // 409
	CodeBuildInProgress   = "BUILD_IN_PROGRESS"    // 409
	CodeNoBuildInProgress = "NO_BUILD_IN_PROGRESS" // 409
	CodeNotReleased       = "NOT_RELEASED"         // 409
	CodeReleaseNotReady   = "RELEASE_NOT_READY"    // 409
	CodeInUse             = "IN_USE"               // 409
	CodeInherited         = "INHERITED_FROM_GROUP" // 409
	CodeBodyTooLarge      = "BODY_TOO_LARGE"       // 413
	CodeValidation        = "VALIDATION_FAILED"    // 422
	CodeInternal          = "INTERNAL"             // 500
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
