// This file holds the input side of the management REST API: request
// bodies (at most 1 MiB; strict JSON objects whose keys must be known and
// whose values must have the documented type, null meaning absent), path
// keys and query values. It serves no route of its own.

package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/flockgo/ironflock/internal/wire"
)

// MaxBodyBytes bounds a request body.
const MaxBodyBytes = 1 << 20

// readBody reads the request body: 413 beyond MaxBodyBytes.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, *apiError) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, errorf(http.StatusRequestEntityTooLarge, wire.CodeBodyTooLarge, "the body exceeds %d bytes", MaxBodyBytes)
		}
		return nil, errorf(http.StatusBadRequest, wire.CodeInvalidJSON, "cannot read the body: %v", err)
	}
	return b, nil
}

// checkJSON reports a body that is not one JSON value (400).
func checkJSON(body []byte) *apiError {
	if len(bytes.TrimSpace(body)) == 0 {
		return errorf(http.StatusBadRequest, wire.CodeInvalidJSON, "the body is empty; send a JSON object")
	}
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v)
		return errorf(http.StatusBadRequest, wire.CodeInvalidJSON, "the body is not valid JSON: %s", describeJSONError(err))
	}
	return nil
}

// jsonObject is a decoded JSON object, its values still raw.
type jsonObject struct {
	where  string // "the body", "devices[2]"...
	fields map[string]json.RawMessage
}

// parseObject decodes a JSON object (the caller has checked the syntax)
// and refuses keys outside known (422).
func parseObject(raw []byte, where string, known ...string) (*jsonObject, *apiError) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return nil, invalid("%s must be a JSON object", where)
	}
	o := &jsonObject{where: where}
	if err := json.Unmarshal(raw, &o.fields); err != nil {
		return nil, errorf(http.StatusBadRequest, wire.CodeInvalidJSON, "%s is not valid JSON: %v", where, err)
	}
	keys := make([]string, 0, len(o.fields))
	for k := range o.fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Contains(known, k) {
			return nil, invalid("%s: unknown field %q (known: %s)", where, k, strings.Join(known, ", "))
		}
	}
	return o, nil
}

// raw returns the value of a field, nil when it is absent or null.
func (o *jsonObject) raw(name string) json.RawMessage {
	v, ok := o.fields[name]
	v = bytes.TrimSpace(v)
	if !ok || len(v) == 0 || string(v) == "null" {
		return nil
	}
	return v
}

// str reads a string field; ok is false when it is absent or null.
func (o *jsonObject) str(name string, required bool) (s string, ok bool, e *apiError) {
	v := o.raw(name)
	if v == nil {
		if required {
			return "", false, invalid("%s: field %q is required", o.where, name)
		}
		return "", false, nil
	}
	if v[0] != '"' || json.Unmarshal(v, &s) != nil {
		return "", false, invalid("%s: field %q must be a string", o.where, name)
	}
	return s, true, nil
}

// key reads a key field: a positive integer.
func (o *jsonObject) key(name string, required bool) (n int, ok bool, e *apiError) {
	v := o.raw(name)
	if v == nil {
		if required {
			return 0, false, invalid("%s: field %q is required", o.where, name)
		}
		return 0, false, nil
	}
	var i int64
	if err := json.Unmarshal(v, &i); err != nil || i <= 0 || i > maxKey {
		return 0, false, invalid("%s: field %q must be a positive integer", o.where, name)
	}
	return int(i), true, nil
}

// enum reads a string field that must be one of allowed.
func enum[T ~string](o *jsonObject, name string, required bool, allowed []T) (v T, ok bool, e *apiError) {
	s, ok, e := o.str(name, required)
	if e != nil || !ok {
		return "", ok, e
	}
	if !slices.Contains(allowed, T(s)) {
		names := make([]string, len(allowed))
		for i, a := range allowed {
			names[i] = string(a)
		}
		return "", false, invalid("%s: field %q is %q; want one of %s", o.where, name, s, strings.Join(names, ", "))
	}
	return T(s), true, nil
}

// maxKey is the largest key the API accepts: keys stay exact in float64.
const maxKey = 1<<53 - 1

var keyPattern = regexp.MustCompile(`^[1-9][0-9]{0,15}$`)

// parseKey parses a key in a path or query: a positive decimal integer
// without sign or leading zeros.
func parseKey(s string) (int, bool) {
	if !keyPattern.MatchString(s) {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > maxKey {
		return 0, false
	}
	return int(n), true
}

// checkText validates a free text field: at most max characters, no
// control characters but newlines and tabs.
func checkText(where, field, s string, max int) *apiError {
	if !utf8.ValidString(s) {
		return invalid("%s: field %q is not valid UTF-8", where, field)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return invalid("%s: field %q has %d characters; at most %d", where, field, n, max)
	}
	for _, r := range s {
		if unicode.IsControl(r) && r != '\n' && r != '\t' && r != '\r' {
			return invalid("%s: field %q contains the control character %U", where, field, r)
		}
	}
	return nil
}

// checkDisplayName validates the name of a device: 1 to 63 characters
// (and at most 63 bytes), no surrounding spaces, no control characters.
func checkDisplayName(where, s string) *apiError {
	switch {
	case s == "":
		return invalid("%s: field \"name\" must not be empty", where)
	case len(s) > 63:
		return invalid("%s: field \"name\" is %d bytes long; at most 63", where, len(s))
	case strings.TrimSpace(s) != s:
		return invalid("%s: field \"name\" has surrounding spaces", where)
	}
	for _, r := range s {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return invalid("%s: field \"name\" contains the character %U", where, r)
		}
	}
	return nil
}

// queryValue returns the single value of a query parameter; present is
// false when it is absent. A parameter given twice is refused (422).
func queryValue(r *http.Request, name string) (v string, present bool, e *apiError) {
	q, err := parseQuery(r)
	if err != nil {
		return "", false, err
	}
	vs, ok := q[name]
	switch {
	case !ok:
		return "", false, nil
	case len(vs) > 1:
		return "", false, invalid("query parameter %q is given %d times", name, len(vs))
	}
	return vs[0], true, nil
}

// parseQuery parses the query string: 400 when it is malformed.
func parseQuery(r *http.Request) (map[string][]string, *apiError) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errorf(http.StatusBadRequest, wire.CodeInvalidQuery, "malformed query: %v", err)
	}
	return q, nil
}

// queryKey reads a required key from the query (swarm_key): 422 when it
// is missing or not a key.
func queryKey(r *http.Request, name string) (int, *apiError) {
	s, ok, e := queryValue(r, name)
	if e != nil {
		return 0, e
	}
	if !ok || s == "" {
		return 0, invalid("query parameter %q is required", name)
	}
	n, valid := parseKey(s)
	if !valid {
		return 0, invalid("query parameter %q is %q; want a positive integer", name, s)
	}
	return n, nil
}

// queryTimeout reads the timeout of a release build in seconds: a number
// from 1 to 1800 (422 otherwise); 0 when absent.
func queryTimeout(r *http.Request) (float64, *apiError) {
	s, ok, e := queryValue(r, "timeout")
	if e != nil || !ok {
		return 0, e
	}
	if !timeoutPattern.MatchString(s) {
		return 0, invalid("query parameter \"timeout\" is %q; want a number of seconds from 1 to 1800", s)
	}
	t, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(t, 0) || t < 1 || t > 1800 {
		return 0, invalid("query parameter \"timeout\" is %s; want a number of seconds from 1 to 1800", s)
	}
	return t, nil
}

var timeoutPattern = regexp.MustCompile(`^[0-9]{1,10}(\.[0-9]{1,9})?$`)

// queryWait reads wait: true (default) or false.
func queryWait(r *http.Request) (bool, *apiError) {
	s, ok, e := queryValue(r, "wait")
	if e != nil || !ok {
		return true, e
	}
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, invalid("query parameter \"wait\" is %q; want true or false", s)
}

// queryIDs reads the ids of a bulk delete: a comma-separated list of
// device keys (400 when absent, empty or malformed). Duplicates count
// once.
func queryIDs(r *http.Request) ([]int, *apiError) {
	s, ok, e := queryValue(r, "ids")
	if e != nil {
		if e.status == http.StatusUnprocessableEntity {
			e.status, e.code = http.StatusBadRequest, wire.CodeInvalidQuery
		}
		return nil, e
	}
	if !ok || s == "" {
		return nil, errorf(http.StatusBadRequest, wire.CodeInvalidQuery, "query parameter \"ids\" is required: ids=<key>,<key>,...")
	}
	parts := strings.Split(s, ",")
	if len(parts) > MaxBulk {
		return nil, errorf(http.StatusBadRequest, wire.CodeInvalidQuery, "query parameter \"ids\" lists %d keys; at most %d", len(parts), MaxBulk)
	}
	var keys []int
	for i, part := range parts {
		k, valid := parseKey(part)
		if !valid {
			return nil, errorf(http.StatusBadRequest, wire.CodeInvalidQuery, "query parameter \"ids\": element %d is %q; want a positive integer", i+1, part)
		}
		if !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// MaxBulk bounds the devices of one bulk request.
const MaxBulk = 1000

func pathKey(r *http.Request, name, kind string) (int, *apiError) {
	s := r.PathValue(name)
	k, ok := parseKey(s)
	if !ok {
		return 0, notFound("%s %q not found", kind, s)
	}
	return k, nil
}

// describeJSONError names the offset of a syntax error.
func describeJSONError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", err, se.Offset)
	}
	return err.Error()
}
