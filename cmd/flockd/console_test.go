package main

import (
	"flag"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoopback(t *testing.T) {
	got := map[string]bool{}
	for _, addr := range []string{"127.0.0.1:8080", "localhost:8080", "LOCALHOST:1", "[::1]:8080", "127.0.0.2:80",
		":8080", "0.0.0.0:8080", "[::]:8080", "192.0.2.1:8080", "example.org:8080", "garbage"} {
		got[addr] = loopback(addr)
	}
	want := map[string]bool{"127.0.0.1:8080": true, "localhost:8080": true, "LOCALHOST:1": true, "[::1]:8080": true,
		"127.0.0.2:80": true, ":8080": false, "0.0.0.0:8080": false, "[::]:8080": false, "192.0.2.1:8080": false,
		"example.org:8080": false, "garbage": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loopback (-want +got):\n%s", diff)
	}
}

// TestConsoleToken checks which token the console gets from the flags and
// the listen address.
func TestConsoleToken(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		listen string
		want   string // "generated": 32 hex digits
		off    bool
	}{
		{nil, "127.0.0.1:8080", "", false},
		{nil, ":8080", "generated", false},
		{[]string{"-console-token", "tok"}, "0.0.0.0:8080", "tok", false},
		{[]string{"-console-token", "tok"}, "127.0.0.1:0", "tok", false},
		{[]string{"-no-console"}, ":8080", "", true},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		f := addConsoleFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		opt, tok := f.console(tc.listen)
		if (opt == nil) != tc.off {
			t.Errorf("%v on %s: option %v, want off=%v", tc.args, tc.listen, opt != nil, tc.off)
		}
		if tc.want == "generated" {
			if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(tok) {
				t.Errorf("%v on %s: token %q, want 32 hex digits", tc.args, tc.listen, tok)
			}
		} else if tok != tc.want {
			t.Errorf("%v on %s: token %q, want %q", tc.args, tc.listen, tok, tc.want)
		}
	}
}

// fetch sends a request to flockd and returns the status and body.
func fetch(t *testing.T, method, u, bearer string, form url.Values) (int, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestConsoleServed runs flockd and uses its console: read-only by
// default, with faults and a token when asked for, absent with -no-console.
func TestConsoleServed(t *testing.T) {
	env, logs := serveInBackground(t)
	if code, body := fetch(t, http.MethodGet, env.HTTPURL+"/fleet", "", nil); code != http.StatusOK ||
		!strings.Contains(body, "sensor-2") || !strings.Contains(body, "read-only") {
		t.Errorf("GET /fleet: %d\n%s", code, body)
	}
	if code, _ := fetch(t, http.MethodPost, env.HTTPURL+"/faults/drop", "", url.Values{}); code != http.StatusForbidden {
		t.Errorf("a fault without -console-write: %d, want 403", code)
	}
	if !strings.Contains(logs.String(), `msg=console url=`+env.HTTPURL+`/ mode=read-only`) {
		t.Errorf("no console line in the log:\n%s", logs)
	}

	env, logs = serveInBackground(t, "-console-write", "-console-token", "tok")
	if code, _ := fetch(t, http.MethodGet, env.HTTPURL+"/", "", nil); code != http.StatusUnauthorized {
		t.Errorf("GET / without the token: %d, want 401", code)
	}
	code, body := fetch(t, http.MethodPost, env.HTTPURL+"/faults/withhold", "tok", url.Values{"realm": {"realm-1-1-dev"}})
	if code != http.StatusOK || !strings.Contains(body, "withhold realm realm-1-1-dev") {
		t.Errorf("withhold with -console-write: %d\n%s", code, body)
	}
	for _, s := range []string{`msg="console token" token=tok open="` + env.HTTPURL + `/?token=tok"`,
		`msg="console action" what="withhold realm realm-1-1-dev"`} {
		if !strings.Contains(logs.String(), s) {
			t.Errorf("the log lacks %s:\n%s", s, logs)
		}
	}

	env, _ = serveInBackground(t, "-no-console")
	if code, _ := fetch(t, http.MethodGet, env.HTTPURL+"/", "", nil); code != http.StatusNotFound {
		t.Errorf("GET / with -no-console: %d, want 404", code)
	}
}
