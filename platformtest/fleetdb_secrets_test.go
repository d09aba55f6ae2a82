package platformtest

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
)

// The secret procedures on the wire, as any WAMP client sees them. The
// SDK's side (package secrets) is tested in its own package.

// TestSecretsEncryptedAtRest: TableRows shows ciphertext ifsec:1:<base64>,
// a fresh one per row even for equal secrets; DecryptedTableRows shows the
// plaintext; NULL stays NULL; a kept secret carries the stored ciphertext;
// ciphertext written back is refused; direct inserts are encrypted too.
func TestSecretsEncryptedAtRest(t *testing.T) { eachStore(t, testSecretsEncryptedAtRest) }

func testSecretsEncryptedAtRest(t *testing.T, s fleetStore) {
	f := newDB(t, s)
	f.appendRow(t, "tokens", map[string]any{"tsp": ms(0), "token": "same"}).ok(t, "first")
	f.appendRow(t, "tokens", map[string]any{"tsp": ms(time.Second), "token": "same"}).ok(t, "second")
	f.appendRow(t, "tokens", map[string]any{"tsp": ms(2 * time.Second), "token": nil}).ok(t, "null")
	f.insert(t, "tokens", map[string]any{"tsp": ms(3 * time.Second), "token": "inserted"})

	stored := col(f.p.TableRows(f.realm, "tokens"), "token")
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
	if diff := cmp.Diff([]any{"same", "same", nil, "inserted"}, col(f.p.DecryptedTableRows(f.realm, "tokens"), "token")); diff != "" {
		t.Errorf("decrypted (-want +got):\n%s", diff)
	}

	f.appendRow(t, "tokens", map[string]any{"tsp": ms(4 * time.Second), "token": stored[0]}).
		refused(t, "stored ciphertext written back", wire.ErrSecretCiphertext)

	f.appendRow(t, "credentials", map[string]any{"tsp": ms(0), "machine": "m1", "api_key": "k1"}).ok(t, "credential")
	f.appendRow(t, "credentials", map[string]any{"tsp": ms(time.Second), "machine": "m1", "api_key": SecretPlaceholder}).ok(t, "kept")
	creds := col(f.p.TableRows(f.realm, "credentials"), "api_key")
	if creds[0] != creds[1] {
		t.Errorf("a kept secret is re-encrypted: %v, %v", creds[0], creds[1])
	}
}

// TestSecretReveal: rows newest first with plaintext, the default limit,
// the projection (requested columns plus every secret column), filters
// and the latest marker, NULL as NULL, never chunked; limits outside
// 1…100 refused, not clamped; a filter on a secret column refused.
func TestSecretReveal(t *testing.T) { eachStore(t, testSecretReveal) }

func testSecretReveal(t *testing.T, s fleetStore) {
	f := newDB(t, s)
	for i := range 12 {
		f.appendRow(t, "credentials", map[string]any{"tsp": ms(time.Duration(i) * time.Second), "machine": []string{"m1", "m2"}[i%2],
			"state": "s" + string(rune('a'+i)), "api_key": "k" + string(rune('a'+i))}).ok(t, "row")
	}
	f.appendRow(t, "credentials", map[string]any{"tsp": ms(time.Minute), "machine": "m3", "state": "null", "api_key": nil}).ok(t, "null")

	reveal := func(query any) callResult { return call(t, f.c, "secret.reveal.credentials", query, nil, false) }
	rows := reveal(q("limit", 3, "offset", 0)).ok(t, "reveal").rows(t)
	if diff := cmp.Diff([]any{nil, "kl", "kk"}, col(rows, "api_key")); diff != "" {
		t.Errorf("newest first with plaintext (-want +got):\n%s", diff)
	}
	if got := len(reveal(map[string]any{}).ok(t, "defaults").rows(t)); got != 10 {
		t.Errorf("default limit: %d rows, want 10", got)
	}

	rows = reveal(q("limit", 2, "columns", list("state"))).ok(t, "projection").rows(t)
	want := []map[string]any{
		{"tsp": iso(time.Minute), "device_key": int64(42), "authid": f.serial, "state": "null", "api_key": nil},
		{"tsp": iso(11 * time.Second), "device_key": int64(42), "authid": f.serial, "state": "sl", "api_key": "kl"},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("projection (-want +got):\n%s", diff)
	}

	rows = reveal(q("limit", 10, "filterAnd", list(map[string]any{"latest": true}, pred("machine", "IN", list("m1", "m2"))))).ok(t, "latest").rows(t)
	if diff := cmp.Diff([]any{"kl", "kk"}, col(rows, "api_key")); diff != "" {
		t.Errorf("latest per machine (-want +got):\n%s", diff)
	}
	rows = reveal(q("limit", 10, "timeRange", list(ms(2*time.Second), ms(4*time.Second)))).ok(t, "time range").rows(t)
	if diff := cmp.Diff([]any{"kd", "kc"}, col(rows, "api_key")); diff != "" {
		t.Errorf("time range (-want +got):\n%s", diff)
	}

	// Not chunked: a budget history reads could not meet.
	f.p.SetChunkBudget(f.realm, "credentials", 16)
	res := call(t, f.c, "secret.reveal.credentials", q("limit", 5), nil, true).ok(t, "small budget")
	if len(res.progress) != 0 || len(res.rows(t)) != 5 {
		t.Errorf("reveal chunked: %d progressive results, %d rows", len(res.progress), len(res.rows(t)))
	}

	for _, lim := range []any{0, 101, 10000} {
		r := reveal(q("limit", lim)).refused(t, "limit", wire.ErrInvalidLimit)
		if len(r.errArgs) != 1 {
			t.Errorf("invalid_limit args %v", r.errArgs)
		}
	}
	reveal(q("limit", -1)).refused(t, "negative limit", wire.ErrRuntimeError)
	reveal(q("limit", "10")).refused(t, "text limit", wire.ErrRuntimeError)
	reveal(nil).refused(t, "no query", wire.ErrRuntimeError)
	reveal(q("limit", 10, "filterAnd", list(map[string]any{"combinator": "AND", "filters": list(pred("api_key", "IS NOT NULL"))}))).
		refused(t, "secret filter in a group", wire.ErrSecretColumn)
	reveal(q("limit", 10, "columns", list("nosuch"))).refused(t, "unknown column", wire.ErrRuntimeError)
}

// TestSecretVerify: the candidate against the newest row by default, or
// the rows the query selects; checked counts them (NULL included, never
// a match); refusals for non-secret columns, secret filters and bad
// payloads, none of them quoting the candidate.
func TestSecretVerify(t *testing.T) { eachStore(t, testSecretVerify) }

func testSecretVerify(t *testing.T, s fleetStore) {
	f := newDB(t, s)
	f.appendRow(t, "credentials", map[string]any{"tsp": ms(0), "machine": "m1", "api_key": "old"}).ok(t, "old")
	f.appendRow(t, "credentials", map[string]any{"tsp": ms(time.Second), "machine": "m1", "api_key": "new"}).ok(t, "new")
	f.appendRow(t, "credentials", map[string]any{"tsp": ms(2 * time.Second), "machine": "m2", "api_key": nil}).ok(t, "null")

	verify := func(query map[string]any) callResult {
		return call(t, f.c, "secret.verify.credentials", query, nil, false)
	}
	answer := func(match bool, checked int64) []any {
		return []any{map[string]any{"match": match, "checked": checked}}
	}
	for _, tc := range []struct {
		name  string
		query map[string]any
		want  []any
	}{
		{"newest row is NULL", q("column", "api_key", "candidate", "new"), answer(false, 1)},
		{"m1 newest", q("column", "api_key", "candidate", "new", "filterAnd", list(pred("machine", "=", "m1"))), answer(true, 1)},
		{"m1 newest, old candidate", q("column", "api_key", "candidate", "old", "filterAnd", list(pred("machine", "=", "m1"))), answer(false, 1)},
		{"three rows", q("limit", 3, "column", "api_key", "candidate", "old"), answer(true, 3)},
		{"no row", q("limit", 5, "column", "api_key", "candidate", "old", "filterAnd", list(pred("machine", "=", "none"))), answer(false, 0)},
		{"empty candidate", q("limit", 3, "column", "api_key", "candidate", ""), answer(false, 3)},
		{"latest m1", q("limit", 100, "column", "api_key", "candidate", "new", "filterAnd", list(map[string]any{"latest": true})), answer(true, 2)},
	} {
		if diff := cmp.Diff(tc.want, verify(tc.query).ok(t, tc.name).args); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}

	const candidate = "hunter2-candidate"
	for _, tc := range []struct {
		name  string
		query any
		uri   string
	}{
		{"not secret", q("column", "state", "candidate", candidate), wire.ErrNotASecretColumn},
		{"no such column", q("column", "nosuch", "candidate", candidate), wire.ErrNotASecretColumn},
		{"secret filter", q("column", "api_key", "candidate", candidate, "filterAnd", list(pred("api_key", "=", "x"))), wire.ErrSecretColumn},
		{"limit 101", q("limit", 101, "column", "api_key", "candidate", candidate), wire.ErrInvalidLimit},
		{"no column", q("candidate", candidate), wire.ErrRuntimeError},
		{"no candidate", q("column", "api_key"), wire.ErrRuntimeError},
		{"candidate not a string", q("column", "api_key", "candidate", list(candidate)), wire.ErrRuntimeError},
		{"query not an object", candidate, wire.ErrRuntimeError},
	} {
		r := call(t, f.c, "secret.verify.credentials", tc.query, nil, false).refused(t, tc.name, tc.uri)
		if s := jsonString(t, r.errArgs) + jsonString(t, r.errKw); strings.Contains(s, candidate) {
			t.Errorf("%s: the refusal quotes the candidate: %s", tc.name, s)
		}
	}
}

// TestSecretRateLimits: per operation and caller, 30 reveals and 120
// verifies in a 60 s window of platform time; the call over the limit is
// rate_limited; another device and the other operation are not affected;
// moving the platform clock past the window's end opens a new one.
func TestSecretRateLimits(t *testing.T) { eachStore(t, testSecretRateLimits) }

func testSecretRateLimits(t *testing.T, s fleetStore) {
	f := newDB(t, s)
	f.appendRow(t, "tokens", map[string]any{"tsp": ms(0), "token": "t"}).ok(t, "row")
	reveal := func(c *client.Client) callResult {
		return call(t, c, "secret.reveal.tokens", q("limit", 1), nil, false)
	}
	verify := func(c *client.Client) callResult {
		return call(t, c, "secret.verify.tokens", q("column", "token", "candidate", "t"), nil, false)
	}
	for i := range 30 {
		reveal(f.c).ok(t, fmt.Sprint("reveal ", i))
	}
	r := reveal(f.c).refused(t, "31st reveal", wire.ErrRateLimited)
	if len(r.errArgs) != 1 {
		t.Errorf("rate_limited args %v", r.errArgs)
	}
	reveal(f.c2).ok(t, "another device")
	for range 120 {
		verify(f.c).ok(t, "verify")
	}
	verify(f.c).refused(t, "121st verify", wire.ErrRateLimited)

	f.p.Clock().Advance(50 * time.Second) // inside the window, whatever the test's own pace
	reveal(f.c).refused(t, "reveal 50 s later", wire.ErrRateLimited)
	verify(f.c).refused(t, "verify 50 s later", wire.ErrRateLimited)
	f.p.Clock().Advance(10 * time.Second) // past its end
	reveal(f.c).ok(t, "reveal in the next window")
	verify(f.c).ok(t, "verify in the next window")
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
