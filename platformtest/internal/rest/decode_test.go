package rest

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// wantAPIError fails the test unless e has status and code and its text
// contains every one of says.
func wantAPIError(t *testing.T, what string, e *apiError, status int, code string, says ...string) {
	t.Helper()
	if e == nil {
		t.Errorf("%s: accepted, want %d %s", what, status, code)
		return
	}
	if e.status != status || e.code != code {
		t.Errorf("%s: %d %s %q, want %d %s", what, e.status, e.code, e.msg, status, code)
	}
	for _, s := range says {
		if !strings.Contains(e.msg, s) {
			t.Errorf("%s: %q does not say %q", what, e.msg, s)
		}
	}
}

// TestBodyChecks: a body must be one JSON object of known fields with
// values of the documented types (null: absent); each refusal names where
// and what.
func TestBodyChecks(t *testing.T) {
	wantAPIError(t, "empty", checkJSON([]byte(" \n")), http.StatusBadRequest, wire.CodeInvalidJSON, "empty")
	wantAPIError(t, "broken", checkJSON([]byte(`{"name":`)), http.StatusBadRequest, wire.CodeInvalidJSON, "not valid JSON", "at byte")
	if e := checkJSON([]byte(`[1]`)); e != nil {
		t.Errorf("a JSON array is JSON: %v", e)
	}
	_, e := parseObject([]byte(`[1]`), "the body", "name")
	wantAPIError(t, "array", e, http.StatusUnprocessableEntity, wire.CodeValidation, "the body must be a JSON object")
	_, e = parseObject([]byte(`{"name":"a","zeta":1,"alpha":2}`), "devices[2]", "name", "description")
	wantAPIError(t, "unknown", e, http.StatusUnprocessableEntity, wire.CodeValidation, `devices[2]: unknown field "alpha"`, "known: name, description")

	o, e := parseObject([]byte(`{"name":"n","key":7,"bad":"7","neg":-1,"frac":1.5,"big":9007199254740992,"none":null}`),
		"the body", "name", "key", "bad", "neg", "frac", "big", "none")
	if e != nil {
		t.Fatal(e)
	}
	if s, ok, e := o.str("name", true); s != "n" || !ok || e != nil {
		t.Errorf("str name: %q %v %v", s, ok, e)
	}
	if _, ok, e := o.str("none", false); ok || e != nil {
		t.Errorf("null optional: ok %v %v, want absent", ok, e)
	}
	_, _, e = o.str("none", true)
	wantAPIError(t, "null required", e, http.StatusUnprocessableEntity, wire.CodeValidation, `field "none" is required`)
	_, _, e = o.str("key", false)
	wantAPIError(t, "number as string", e, http.StatusUnprocessableEntity, wire.CodeValidation, `field "key" must be a string`)
	if k, ok, e := o.key("key", true); k != 7 || !ok || e != nil {
		t.Errorf("key: %d %v %v", k, ok, e)
	}
	for _, name := range []string{"bad", "neg", "frac", "big"} {
		_, _, e = o.key(name, true)
		wantAPIError(t, "key "+name, e, http.StatusUnprocessableEntity, wire.CodeValidation, fmt.Sprintf("field %q must be a positive integer", name))
	}
	_, _, e = enum(o, "name", true, targetStates)
	wantAPIError(t, "enum", e, http.StatusUnprocessableEntity, wire.CodeValidation,
		`field "name" is "n"; want one of `+strings.Join(targetStates, ", "))
	if v, ok, e := enum(o, "none", false, targetStates); v != "" || ok || e != nil {
		t.Errorf("null optional enum: %q %v %v, want absent", v, ok, e)
	}
}

// TestBodyTooLarge: a body beyond MaxBodyBytes is 413, one at the bound is
// read whole.
func TestBodyTooLarge(t *testing.T) {
	read := func(n int) ([]byte, *apiError) {
		r := httptest.NewRequest("POST", "/apps", strings.NewReader(strings.Repeat(" ", n)))
		return readBody(httptest.NewRecorder(), r)
	}
	if b, e := read(MaxBodyBytes); e != nil || len(b) != MaxBodyBytes {
		t.Errorf("%d bytes: %d read, %v", MaxBodyBytes, len(b), e)
	}
	_, e := read(MaxBodyBytes + 1)
	wantAPIError(t, "over the bound", e, http.StatusRequestEntityTooLarge, wire.CodeBodyTooLarge, fmt.Sprint(MaxBodyBytes))
}

// TestTextChecks: free text and device names refuse what a console could
// not show, naming the field.
func TestTextChecks(t *testing.T) {
	if e := checkText("the body", "description", "two\nlines\tand a tab", 100); e != nil {
		t.Errorf("newlines and tabs: %v", e)
	}
	wantAPIError(t, "bell", checkText("the body", "description", "a\x07", 100), http.StatusUnprocessableEntity, wire.CodeValidation, `"description" contains the control character U+0007`)
	wantAPIError(t, "long", checkText("the body", "description", strings.Repeat("é", 11), 10), http.StatusUnprocessableEntity, wire.CodeValidation, "11 characters; at most 10")
	wantAPIError(t, "not UTF-8", checkText("the body", "description", "\xff", 10), http.StatusUnprocessableEntity, wire.CodeValidation, "not valid UTF-8")

	if e := checkDisplayName("devices[0]", "press 1"); e != nil {
		t.Errorf("a plain name: %v", e)
	}
	for _, tc := range []struct{ name, says string }{
		{"", "must not be empty"},
		{" press", "surrounding spaces"},
		{strings.Repeat("é", 32), "64 bytes long; at most 63"},
		{"pre\x00ss", "contains the character U+0000"},
	} {
		wantAPIError(t, fmt.Sprintf("name %q", tc.name), checkDisplayName("devices[0]", tc.name), http.StatusUnprocessableEntity, wire.CodeValidation, "devices[0]", tc.says)
	}
}

// TestKeys: a key in a path or a query is a positive decimal integer
// without sign or leading zeros, exact in a float64.
func TestKeys(t *testing.T) {
	for s, want := range map[string]int{"1": 1, "42": 42, "9007199254740991": 1<<53 - 1} {
		if k, ok := parseKey(s); !ok || k != want {
			t.Errorf("parseKey(%q) = %d %v, want %d", s, k, ok, want)
		}
	}
	for _, s := range []string{"", "0", "01", "+1", "-1", "1.0", "1e3", " 1", "9007199254740992", "99999999999999999"} {
		if k, ok := parseKey(s); ok {
			t.Errorf("parseKey(%q) = %d, want refused", s, k)
		}
	}
}

// TestQueries: query parameters are read once each, with their
// documented forms, and refused naming the parameter.
func TestQueries(t *testing.T) {
	req := func(q string) *http.Request { return httptest.NewRequest("GET", "/x?"+q, nil) }

	if k, e := queryKey(req("swarm_key=3"), "swarm_key"); k != 3 || e != nil {
		t.Errorf("swarm_key=3: %d %v", k, e)
	}
	_, e := queryKey(req(""), "swarm_key")
	wantAPIError(t, "missing key", e, http.StatusUnprocessableEntity, wire.CodeValidation, `"swarm_key" is required`)
	_, e = queryKey(req("swarm_key=x"), "swarm_key")
	wantAPIError(t, "bad key", e, http.StatusUnprocessableEntity, wire.CodeValidation, `"swarm_key" is "x"; want a positive integer`)
	_, e = queryKey(req("swarm_key=1&swarm_key=2"), "swarm_key")
	wantAPIError(t, "twice", e, http.StatusUnprocessableEntity, wire.CodeValidation, `"swarm_key" is given 2 times`)
	_, e = queryKey(req("swarm_key=%zz"), "swarm_key")
	wantAPIError(t, "malformed", e, http.StatusBadRequest, wire.CodeInvalidQuery, "malformed query")

	for q, want := range map[string]bool{"": true, "wait=true": true, "wait=false": false} {
		if w, e := queryWait(req(q)); w != want || e != nil {
			t.Errorf("%q: wait %v %v, want %v", q, w, e, want)
		}
	}
	_, e = queryWait(req("wait=1"))
	wantAPIError(t, "wait=1", e, http.StatusUnprocessableEntity, wire.CodeValidation, `"wait" is "1"; want true or false`)

	for q, want := range map[string]float64{"": 0, "timeout=1": 1, "timeout=1800": 1800, "timeout=2.5": 2.5} {
		if s, e := queryTimeout(req(q)); s != want || e != nil {
			t.Errorf("%q: timeout %v %v, want %v", q, s, e, want)
		}
	}
	for _, q := range []string{"timeout=0.5", "timeout=1801", "timeout=-1", "timeout=1e3", "timeout=NaN"} {
		_, e := queryTimeout(req(q))
		wantAPIError(t, q, e, http.StatusUnprocessableEntity, wire.CodeValidation, "from 1 to 1800")
	}

	if ids, e := queryIDs(req("ids=3,1,3")); e != nil || fmt.Sprint(ids) != "[3 1]" {
		t.Errorf("ids=3,1,3: %v %v, want [3 1]", ids, e)
	}
	for q, says := range map[string]string{
		"":              `"ids" is required`,
		"ids=":          `"ids" is required`,
		"ids=1,,2":      `element 2 is ""`,
		"ids=1,x":       `element 2 is "x"`,
		"ids=1&ids=2":   `"ids" is given 2 times`,
		"ids=" + many(): fmt.Sprintf("lists %d keys; at most %d", MaxBulk+1, MaxBulk),
	} {
		_, e := queryIDs(req(q))
		wantAPIError(t, q, e, http.StatusBadRequest, wire.CodeInvalidQuery, says)
	}
}

// many is a list of MaxBulk+1 keys.
func many() string {
	keys := make([]string, MaxBulk+1)
	for i := range keys {
		keys[i] = fmt.Sprint(i + 1)
	}
	return strings.Join(keys, ",")
}

// TestCreateRefusalsKeepNothing: through the router, each malformed
// creation is refused with its status and code, and no app is made.
func TestCreateRefusalsKeepNothing(t *testing.T) {
	ta := newTestAPI(t)
	for _, tc := range []struct {
		body   string
		status int
		code   string
		says   string
	}{
		{"", http.StatusBadRequest, wire.CodeInvalidJSON, "empty"},
		{`{"name":`, http.StatusBadRequest, wire.CodeInvalidJSON, "not valid JSON"},
		{`["mine"]`, http.StatusUnprocessableEntity, wire.CodeValidation, "must be a JSON object"},
		{`{"name":"mine","owner":"bob"}`, http.StatusUnprocessableEntity, wire.CodeValidation, `unknown field "owner"`},
		{`{"name":7}`, http.StatusUnprocessableEntity, wire.CodeValidation, `"name" must be a string`},
		{`{"description":"x"}`, http.StatusUnprocessableEntity, wire.CodeValidation, `"name" is required`},
		{`{"name":"no spaces"}`, http.StatusUnprocessableEntity, wire.CodeValidation, `"name" is "no spaces"`},
		{`{"name":"mine","description":"\u0007"}`, http.StatusUnprocessableEntity, wire.CodeValidation, "control character"},
		{`{"name":"mine"}` + strings.Repeat(" ", MaxBodyBytes), http.StatusRequestEntityTooLarge, wire.CodeBodyTooLarge, "exceeds"},
	} {
		wantError(t, ta.do("POST", Prefix+"/apps", aliceToken, tc.body), tc.status, tc.code, tc.says)
	}
	ta.reg.Do(func(s *registry.State) {
		if n := len(s.Apps()); n != 0 {
			t.Errorf("%d apps after refused creations, want 0", n)
		}
	})
	// A viewer sees the project but a device creation is an admin's.
	wantError(t, ta.do("POST", Prefix+"/swarms/1/devices", vicToken, `{"name":"lathe"}`), http.StatusForbidden, wire.CodeForbidden)
	ta.reg.Do(func(s *registry.State) {
		if n := len(s.Devices()); n != 1 {
			t.Errorf("%d devices after a viewer's creation, want 1", n)
		}
	})
}
