package worldtest

import (
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/rest"
)

// RESTAnswer is an answer of the management API.
type RESTAnswer struct {
	Status int         // 0: the request could not be sent (RESTSend)
	Header http.Header // the answer's header
	Body   []byte      // the answer's body
}

// RESTDo sends a request with plain net/http. path is relative to the
// server root when it starts with /v1/, else to /v1/platform. token ""
// sends no Authorization header.
func RESTDo(t testing.TB, p Server, method, path, token, body string) RESTAnswer {
	t.Helper()
	a := RESTSend(p, method, path, token, body)
	if a.Status == 0 {
		t.Fatalf("%s %s: %s", method, path, a.Body)
	}
	return a
}

// RESTSend is restDo for any goroutine: a failure to send is an answer
// with status 0 and the error as body.
func RESTSend(p Server, method, path, token, body string) RESTAnswer {
	return RESTSendVia(http.DefaultClient, p, method, path, token, body)
}

// RESTSendVia is RESTSend through the client c (one that keeps as many
// connections as its callers run requests at once, for a benchmark).
func RESTSendVia(c *http.Client, p Server, method, path, token, body string) RESTAnswer {
	fail := func(err error) RESTAnswer { return RESTAnswer{Body: []byte(err.Error())} }
	if !strings.HasPrefix(path, "/v1/") {
		path = rest.Prefix + path
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, p.HTTPURL()+path, rd)
	if err != nil {
		return fail(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rsp, err := c.Do(req)
	if err != nil {
		return fail(err)
	}
	defer rsp.Body.Close()
	b, err := io.ReadAll(rsp.Body)
	if err != nil {
		return fail(err)
	}
	return RESTAnswer{Status: rsp.StatusCode, Header: rsp.Header, Body: b}
}

// RESTOK sends a request, fails unless the status is want, and decodes
// the body into out (when not nil).
func RESTOK(t testing.TB, p Server, method, path, token, body string, want int, out any) RESTAnswer {
	t.Helper()
	a := RESTDo(t, p, method, path, token, body)
	if a.Status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, a.Status, want, a.Body)
	}
	if out != nil {
		if err := json.Unmarshal(a.Body, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, a.Body, err)
		}
	}
	return a
}

// CheckErrorAnswer checks the shape of an error answer: JSON content type
// and a body of exactly {"error", "code"}, both non-empty strings.
func CheckErrorAnswer(t testing.TB, a RESTAnswer, wantStatus int, wantCode string) {
	t.Helper()
	if a.Status != wantStatus {
		t.Errorf("status %d, want %d: %s", a.Status, wantStatus, a.Body)
	}
	if mt, _, err := mime.ParseMediaType(a.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		t.Errorf("Content-Type %q, want application/json", a.Header.Get("Content-Type"))
	}
	var m map[string]any
	if err := json.Unmarshal(a.Body, &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", a.Body, err)
	}
	msg, _ := m["error"].(string)
	code, _ := m["code"].(string)
	if len(m) != 2 || msg == "" || code == "" {
		t.Errorf("body %s: want exactly non-empty \"error\" and \"code\"", a.Body)
	}
	if wantCode != "" && code != wantCode {
		t.Errorf("code %q, want %q (%s)", code, wantCode, msg)
	}
}

const (
	AliceToken = "alice-token"
	VicToken   = "vic-token"
	BobToken   = "bob-token"
)
