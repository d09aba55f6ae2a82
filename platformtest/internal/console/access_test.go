package console_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/console"
)

// TestToken checks the ways of giving the console's token.
func TestToken(t *testing.T) {
	w := newWorld(t, platformtest.Console{Token: "s3cret", Write: true})
	if code, body := w.get(t, "/fleet"); code != http.StatusUnauthorized || !strings.Contains(body, "console token") {
		t.Errorf("without token: %d, want 401 telling where the token is:\n%s", code, body)
	}
	if code, _ := w.get(t, "/fleet?token=wrong"); code != http.StatusUnauthorized {
		t.Errorf("wrong token: %d, want 401", code)
	}
	if code, _ := w.do(t, http.MethodGet, "/fleet", nil, http.Header{"Authorization": {"Bearer s3cret"}}); code != http.StatusOK {
		t.Errorf("bearer token: %d, want 200", code)
	}
	req, _ := http.NewRequest(http.MethodGet, w.p.HTTPURL()+"/fleet?token=s3cret&x=1", nil)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/fleet?x=1" {
		t.Errorf("?token=: %d to %q, want 303 to /fleet?x=1", res.StatusCode, res.Header.Get("Location"))
	}
	var ck *http.Cookie
	for _, c := range res.Cookies() {
		if c.Name == console.CookieName {
			ck = c
		}
	}
	if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteStrictMode {
		t.Fatalf("cookie %+v, want an HttpOnly, SameSite=Strict %s", ck, console.CookieName)
	}
	if code, _ := w.do(t, http.MethodGet, "/fleet", nil, http.Header{"Cookie": {ck.String()}}); code != http.StatusOK {
		t.Errorf("cookie: %d, want 200", code)
	}
	// The platform's own routes are not the console's: no console token.
	if code, _ := w.get(t, "/v1/platform/openapi.json"); code != http.StatusOK {
		t.Errorf("the API's document: %d, want 200", code)
	}
}

// TestCrossOrigin checks that another site's form cannot act.
func TestCrossOrigin(t *testing.T) {
	w := newWorld(t, platformtest.Console{Write: true})
	for _, h := range []http.Header{
		{"Origin": {"http://evil.example"}},
		{"Sec-Fetch-Site": {"cross-site"}},
		{"Origin": {strings.Replace(w.p.HTTPURL(), "http://", "https://", 1)}}, // same host and port, another scheme
	} {
		code, _ := w.do(t, http.MethodPost, "/faults/withhold", url.Values{"realm": {w.realm}}, h)
		if code != http.StatusForbidden {
			t.Errorf("POST with %v: %d, want 403", h, code)
		}
	}
	if got := w.p.Sessions(); len(got) != 0 {
		t.Errorf("sessions %v", got)
	}
	code, _ := w.do(t, http.MethodPost, "/faults/withhold", url.Values{"realm": {w.realm}},
		http.Header{"Origin": {w.p.HTTPURL()}, "Sec-Fetch-Site": {"same-origin"}})
	if code != http.StatusOK {
		t.Errorf("POST from the console's own page: %d, want 200", code)
	}
}
