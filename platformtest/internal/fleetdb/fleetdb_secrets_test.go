package fleetdb_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// The secret procedures on the wire, as any WAMP client sees them. The
// SDK's side (package secrets) is tested in its own package.

// TestSecretsEncryptedAtRest: TableRows shows ciphertext ifsec:1:<base64>,
// a fresh one per row even for equal secrets; DecryptedTableRows shows the
// plaintext; NULL stays NULL; a kept secret carries the stored ciphertext;
// ciphertext written back is refused; direct inserts are encrypted too.
func TestSecretsEncryptedAtRest(t *testing.T) { backends.EachStore(t, testSecretsEncryptedAtRest) }

func testSecretsEncryptedAtRest(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	f.appendRow(t, "tokens", map[string]any{"tsp": worldtest.Ms(0), "token": "same"}).OK(t, "first")
	f.appendRow(t, "tokens", map[string]any{"tsp": worldtest.Ms(time.Second), "token": "same"}).OK(t, "second")
	f.appendRow(t, "tokens", map[string]any{"tsp": worldtest.Ms(2 * time.Second), "token": nil}).OK(t, "null")
	f.insert(t, "tokens", map[string]any{"tsp": worldtest.Ms(3 * time.Second), "token": "inserted"})

	stored := worldtest.Col(f.p.TableRows(f.realm, "tokens"), "token")
	for i, v := range []any{stored[0], stored[1], stored[3]} {
		s, _ := v.(string)
		text, ok := strings.CutPrefix(s, "ifsec:1:")
		if !ok {
			t.Fatalf("stored value %d = %v, want ifsec:1:<base64>", i, v)
		}
		raw, err := base64.StdEncoding.DecodeString(text)
		if err != nil || len(raw) < 12+16 {
			t.Errorf("stored value %d: %d bytes of base64 (%v), want nonce, ciphertext and tag", i, len(raw), err)
		}
		if strings.Contains(s, "same") || strings.Contains(s, "inserted") {
			t.Errorf("stored value %d holds the plaintext: %s", i, s)
		}
	}
	if stored[0] == stored[1] {
		t.Errorf("two equal secrets stored as the same ciphertext %v", stored[0])
	}
	if stored[2] != nil {
		t.Errorf("NULL stored as %v", stored[2])
	}
	if diff := cmp.Diff([]any{"same", "same", nil, "inserted"}, worldtest.Col(f.p.DecryptedTableRows(f.realm, "tokens"), "token")); diff != "" {
		t.Errorf("decrypted (-want +got):\n%s", diff)
	}

	f.appendRow(t, "tokens", map[string]any{"tsp": worldtest.Ms(4 * time.Second), "token": stored[0]}).
		Refused(t, "stored ciphertext written back", wire.ErrSecretCiphertext)

	f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(0), "machine": "m1", "api_key": "k1"}).OK(t, "credential")
	f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(time.Second), "machine": "m1", "api_key": platformtest.SecretPlaceholder}).OK(t, "kept")
	creds := worldtest.Col(f.p.TableRows(f.realm, "credentials"), "api_key")
	if creds[0] != creds[1] {
		t.Errorf("a kept secret is re-encrypted: %v, %v", creds[0], creds[1])
	}
}

// TestSecretReveal: rows newest first with plaintext, the default limit,
// the projection (requested columns plus every secret column), filters
// and the latest marker, NULL as NULL, never chunked; limits outside
// 1…100 refused, not clamped; a filter on a secret column refused.
func TestSecretReveal(t *testing.T) { backends.EachStore(t, testSecretReveal) }

func testSecretReveal(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	for i := range 12 {
		f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(time.Duration(i) * time.Second), "machine": []string{"m1", "m2"}[i%2],
			"state": "s" + string(rune('a'+i)), "api_key": "k" + string(rune('a'+i))}).OK(t, "row")
	}
	f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(time.Minute), "machine": "m3", "state": "null", "api_key": nil}).OK(t, "null")

	reveal := func(query any) worldtest.CallResult {
		return worldtest.Call(t, f.c, "secret.reveal.credentials", query, nil, false)
	}
	rows := reveal(worldtest.Q("limit", 3, "offset", 0)).OK(t, "reveal").Rows(t)
	if diff := cmp.Diff([]any{nil, "kl", "kk"}, worldtest.Col(rows, "api_key")); diff != "" {
		t.Errorf("newest first with plaintext (-want +got):\n%s", diff)
	}
	if got := len(reveal(map[string]any{}).OK(t, "defaults").Rows(t)); got != 10 {
		t.Errorf("default limit: %d rows, want 10", got)
	}

	rows = reveal(worldtest.Q("limit", 2, "columns", worldtest.List("state"))).OK(t, "projection").Rows(t)
	want := []map[string]any{
		{"tsp": worldtest.ISO(time.Minute), "device_key": int64(42), "authid": f.serial, "state": "null", "api_key": nil},
		{"tsp": worldtest.ISO(11 * time.Second), "device_key": int64(42), "authid": f.serial, "state": "sl", "api_key": "kl"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("projection (-want +got):\n%s", diff)
	}

	rows = reveal(worldtest.Q("limit", 10, "filterAnd", worldtest.List(map[string]any{"latest": true}, worldtest.Pred("machine", "IN", worldtest.List("m1", "m2"))))).OK(t, "latest").Rows(t)
	if diff := cmp.Diff([]any{"kl", "kk"}, worldtest.Col(rows, "api_key")); diff != "" {
		t.Errorf("latest per machine (-want +got):\n%s", diff)
	}
	rows = reveal(worldtest.Q("limit", 10, "timeRange", worldtest.List(worldtest.Ms(2*time.Second), worldtest.Ms(4*time.Second)))).OK(t, "time range").Rows(t)
	if diff := cmp.Diff([]any{"kd", "kc"}, worldtest.Col(rows, "api_key")); diff != "" {
		t.Errorf("time range (-want +got):\n%s", diff)
	}

	// Not chunked: a budget history reads could not meet.
	f.p.SetChunkBudget(f.realm, "credentials", 16)
	res := worldtest.Call(t, f.c, "secret.reveal.credentials", worldtest.Q("limit", 5), nil, true).OK(t, "small budget")
	if len(res.Progress) != 0 || len(res.Rows(t)) != 5 {
		t.Errorf("reveal chunked: %d progressive results, %d rows", len(res.Progress), len(res.Rows(t)))
	}

	for _, lim := range []any{0, 101, 10000} {
		r := reveal(worldtest.Q("limit", lim)).Refused(t, "limit", wire.ErrInvalidLimit)
		if len(r.ErrArgs) != 1 {
			t.Errorf("invalid_limit args %v", r.ErrArgs)
		}
	}
	reveal(worldtest.Q("limit", -1)).Refused(t, "negative limit", wire.ErrRuntimeError)
	reveal(worldtest.Q("limit", "10")).Refused(t, "text limit", wire.ErrRuntimeError)
	reveal(nil).Refused(t, "no query", wire.ErrRuntimeError)
	reveal(worldtest.Q("limit", 10, "filterAnd", worldtest.List(map[string]any{"combinator": "AND", "filters": worldtest.List(worldtest.Pred("api_key", "IS NOT NULL"))}))).
		Refused(t, "secret filter in a group", wire.ErrSecretColumn)
	reveal(worldtest.Q("limit", 10, "columns", worldtest.List("nosuch"))).Refused(t, "unknown column", wire.ErrRuntimeError)
}

// TestSecretVerify: the candidate against the newest row by default, or
// the rows the query selects; checked counts them (NULL included, never
// a match); refusals for non-secret columns, secret filters and bad
// payloads, none of them quoting the candidate.
func TestSecretVerify(t *testing.T) { backends.EachStore(t, testSecretVerify) }

func testSecretVerify(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(0), "machine": "m1", "api_key": "old"}).OK(t, "old")
	f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(time.Second), "machine": "m1", "api_key": "new"}).OK(t, "new")
	f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(2 * time.Second), "machine": "m2", "api_key": nil}).OK(t, "null")

	verify := func(query map[string]any) worldtest.CallResult {
		return worldtest.Call(t, f.c, "secret.verify.credentials", query, nil, false)
	}
	answer := func(match bool, checked int64) []any {
		return []any{map[string]any{"match": match, "checked": checked}}
	}
	for _, tc := range []struct {
		name  string
		query map[string]any
		want  []any
	}{
		{"newest row is NULL", worldtest.Q("column", "api_key", "candidate", "new"), answer(false, 1)},
		{"m1 newest", worldtest.Q("column", "api_key", "candidate", "new", "filterAnd", worldtest.List(worldtest.Pred("machine", "=", "m1"))), answer(true, 1)},
		{"m1 newest, old candidate", worldtest.Q("column", "api_key", "candidate", "old", "filterAnd", worldtest.List(worldtest.Pred("machine", "=", "m1"))), answer(false, 1)},
		{"three rows", worldtest.Q("limit", 3, "column", "api_key", "candidate", "old"), answer(true, 3)},
		{"no row", worldtest.Q("limit", 5, "column", "api_key", "candidate", "old", "filterAnd", worldtest.List(worldtest.Pred("machine", "=", "none"))), answer(false, 0)},
		{"empty candidate", worldtest.Q("limit", 3, "column", "api_key", "candidate", ""), answer(false, 3)},
		{"latest m1", worldtest.Q("limit", 100, "column", "api_key", "candidate", "new", "filterAnd", worldtest.List(map[string]any{"latest": true})), answer(true, 2)},
	} {
		if diff := cmp.Diff(tc.want, verify(tc.query).OK(t, tc.name).Args); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}

	const candidate = "hunter2-candidate"
	for _, tc := range []struct {
		name  string
		query any
		uri   string
	}{
		{"not secret", worldtest.Q("column", "state", "candidate", candidate), wire.ErrNotASecretColumn},
		{"no such column", worldtest.Q("column", "nosuch", "candidate", candidate), wire.ErrNotASecretColumn},
		{"secret filter", worldtest.Q("column", "api_key", "candidate", candidate, "filterAnd", worldtest.List(worldtest.Pred("api_key", "=", "x"))), wire.ErrSecretColumn},
		{"limit 101", worldtest.Q("limit", 101, "column", "api_key", "candidate", candidate), wire.ErrInvalidLimit},
		{"no column", worldtest.Q("candidate", candidate), wire.ErrRuntimeError},
		{"no candidate", worldtest.Q("column", "api_key"), wire.ErrRuntimeError},
		{"candidate not a string", worldtest.Q("column", "api_key", "candidate", worldtest.List(candidate)), wire.ErrRuntimeError},
		{"query not an object", candidate, wire.ErrRuntimeError},
	} {
		r := worldtest.Call(t, f.c, "secret.verify.credentials", tc.query, nil, false).Refused(t, tc.name, tc.uri)
		if s := jsonString(t, r.ErrArgs) + jsonString(t, r.ErrKw); strings.Contains(s, candidate) {
			t.Errorf("%s: the refusal quotes the candidate: %s", tc.name, s)
		}
	}
}

// TestSecretRateLimits: per operation and caller, 30 reveals and 120
// verifies in a 60 s window of platform time; the call over the limit is
// rate_limited; another device and the other operation are not affected;
// moving the platform clock past the window's end opens a new one.
func TestSecretRateLimits(t *testing.T) { backends.EachStore(t, testSecretRateLimits) }

func testSecretRateLimits(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	f.appendRow(t, "tokens", map[string]any{"tsp": worldtest.Ms(0), "token": "t"}).OK(t, "row")
	reveal := func(c *client.Client) worldtest.CallResult {
		return worldtest.Call(t, c, "secret.reveal.tokens", worldtest.Q("limit", 1), nil, false)
	}
	verify := func(c *client.Client) worldtest.CallResult {
		return worldtest.Call(t, c, "secret.verify.tokens", worldtest.Q("column", "token", "candidate", "t"), nil, false)
	}
	for i := range 30 {
		reveal(f.c).OK(t, fmt.Sprint("reveal ", i))
	}
	r := reveal(f.c).Refused(t, "31st reveal", wire.ErrRateLimited)
	if len(r.ErrArgs) != 1 {
		t.Errorf("rate_limited args %v", r.ErrArgs)
	}
	reveal(f.c2).OK(t, "another device")
	for range 120 {
		verify(f.c).OK(t, "verify")
	}
	verify(f.c).Refused(t, "121st verify", wire.ErrRateLimited)

	f.p.Clock().Advance(50 * time.Second) // inside the window, whatever the test's own pace
	reveal(f.c).Refused(t, "reveal 50 s later", wire.ErrRateLimited)
	verify(f.c).Refused(t, "verify 50 s later", wire.ErrRateLimited)
	f.p.Clock().Advance(10 * time.Second) // past its end
	reveal(f.c).OK(t, "reveal in the next window")
	verify(f.c).OK(t, "verify in the next window")
}

// jsonString renders v as JSON, failing the test when it cannot.
func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
