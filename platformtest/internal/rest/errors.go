// This file holds the answers of the management REST API (docs/fake.md §9):
// the error body {"error": "<human text>", "code": "<STABLE_CODE>"} with
// its stable codes, and the JSON writer of every answer. It serves no
// route of its own.

package rest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/flockgo/ironflock/internal/wire"
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
	return errorf(http.StatusNotFound, wire.CodeNotFound, format, args...)
}

func forbidden(format string, args ...any) *apiError {
	return errorf(http.StatusForbidden, wire.CodeForbidden, format, args...)
}

func conflict(code, format string, args ...any) *apiError {
	return errorf(http.StatusConflict, code, format, args...)
}

func invalid(format string, args ...any) *apiError {
	return errorf(http.StatusUnprocessableEntity, wire.CodeValidation, format, args...)
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
		_ = enc.Encode(errorBody{Error: "cannot encode the answer: " + err.Error(), Code: wire.CodeInternal})
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(buf.Len()))
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}
