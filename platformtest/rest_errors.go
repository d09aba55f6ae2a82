// This file holds the answers of the management REST API (PLATFORM.md §3):
// the error body {"error": "<human text>", "code": "<STABLE_CODE>"} with
// its stable codes, and the JSON writer of every answer. It serves no
// route of its own.

package platformtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
)

// Stable error codes of the management API, by status.
const (
	codeInvalidJSON       = "INVALID_JSON"         // 400: the body is not JSON
	codeInvalidQuery      = "INVALID_QUERY"        // 400: a malformed query (ids)
	codeUnauthenticated   = "UNAUTHENTICATED"      // 401: no or unknown bearer token
	codeForbidden         = "FORBIDDEN"            // 403: visible, but the user may not change it
	codeNotFound          = "NOT_FOUND"            // 404: no such resource, or not visible
	codeMethodNotAllowed  = "METHOD_NOT_ALLOWED"   // 405
	codeAlreadyExists     = "ALREADY_EXISTS"       // 409: name or version taken
	codeAlreadyInstalled  = "ALREADY_INSTALLED"    // 409: the app is on the device or group already
	codeBuildInProgress   = "BUILD_IN_PROGRESS"    // 409
	codeNoBuildInProgress = "NO_BUILD_IN_PROGRESS" // 409
	codeNotReleased       = "NOT_RELEASED"         // 409: the app has no READY release
	codeReleaseNotReady   = "RELEASE_NOT_READY"    // 409: the named release is not READY
	codeInUse             = "IN_USE"               // 409: installed on a device or a group
	codeInherited         = "INHERITED_FROM_GROUP" // 409: remove it from the group instead
	codeBodyTooLarge      = "BODY_TOO_LARGE"       // 413
	codeValidation        = "VALIDATION_FAILED"    // 422
	codeInternal          = "INTERNAL"             // 500: a bug of the fake, never bad input
)

// apiError is an error answer of the management API.
type apiError struct {
	status int
	code   string
	msg    string
}

// Error returns the human text.
func (e *apiError) Error() string { return e.msg }

func errorf(status int, code, format string, args ...any) *apiError {
	return &apiError{status: status, code: code, msg: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *apiError {
	return errorf(http.StatusNotFound, codeNotFound, format, args...)
}

func forbidden(format string, args ...any) *apiError {
	return errorf(http.StatusForbidden, codeForbidden, format, args...)
}

func conflict(code, format string, args ...any) *apiError {
	return errorf(http.StatusConflict, code, format, args...)
}

func invalid(format string, args ...any) *apiError {
	return errorf(http.StatusUnprocessableEntity, codeValidation, format, args...)
}

// errorBody is the JSON body of every error.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// writeError answers with e.
func writeError(w http.ResponseWriter, e *apiError) {
	writeJSON(w, e.status, errorBody{Error: e.msg, Code: e.code})
}

// writeJSON answers with status and v as JSON; 204 has no body.
func writeJSON(w http.ResponseWriter, status int, v any) {
	if status == http.StatusNoContent {
		w.WriteHeader(status)
		return
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // cannot happen: views are plain structs
		status = http.StatusInternalServerError
		buf.Reset()
		_ = enc.Encode(errorBody{Error: "cannot encode the answer: " + err.Error(), Code: codeInternal})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
