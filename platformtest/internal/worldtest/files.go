package worldtest

import (
	"testing"

	"github.com/gammazero/nexus/v3/client"
)

// FilesClient is a raw client of the file service's procedures, as a
// Python or JavaScript app calls them.
type FilesClient struct {
	C *client.Client // the app's session
}

// envelope calls a files.* procedure with payload (nil: no arguments) and
// returns the envelope of its RESULT.
func (f FilesClient) envelope(t *testing.T, uri string, payload map[string]any) map[string]any {
	t.Helper()
	r := Call(t, f.C, uri, payload, nil, false).OK(t, uri)
	if len(r.Args) != 1 {
		t.Fatalf("%s: args %v, want one envelope", uri, r.Args)
	}
	env, ok := r.Args[0].(map[string]any)
	if !ok {
		t.Fatalf("%s: envelope %T", uri, r.Args[0])
	}
	return env
}

// OK returns the payload of a successful call.
func (f FilesClient) OK(t *testing.T, uri string, payload map[string]any) map[string]any {
	t.Helper()
	env := f.envelope(t, uri, payload)
	if env["success"] != true {
		t.Fatalf("%s %v: %v", uri, payload, env)
	}
	p, _ := env["payload"].(map[string]any)
	return p
}

// Refused checks that a call fails with code and returns the reason.
func (f FilesClient) Refused(t *testing.T, uri string, payload map[string]any, code string) string {
	t.Helper()
	env := f.envelope(t, uri, payload)
	reason, _ := env["reason"].(string)
	if env["success"] != false || env["code"] != code || reason == "" || len(env) != 3 {
		t.Fatalf("%s %v: %v, want code %s", uri, payload, env, code)
	}
	return reason
}
