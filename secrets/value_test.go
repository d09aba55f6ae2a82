// This file tests Value: its wire forms through package client, a Go
// struct that keeps and then clears a secret, and that it never prints
// the plaintext.

package secrets_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/secrets"
)

func TestValueJSON(t *testing.T) {
	for _, tc := range []struct {
		v    secrets.Value
		want string
	}{
		{secrets.Value{}, `"__secret__"`},
		{secrets.Keep(), `"__secret__"`},
		{secrets.Set("k\"1"), `"k\"1"`},
		{secrets.Set(""), `""`},
		{secrets.Clear(), `null`},
	} {
		b, err := json.Marshal(tc.v)
		if err != nil || string(b) != tc.want {
			t.Errorf("%v: %s, %v; want %s", tc.v, b, err, tc.want)
		}
	}
	type tagged struct {
		Empty secrets.Value `json:"empty,omitempty"`
		Zero  secrets.Value `json:"zero,omitzero"`
		Clear secrets.Value `json:"clear,omitzero"`
	}
	b, _ := json.Marshal(tagged{Clear: secrets.Clear()})
	if string(b) != `{"empty":"__secret__","clear":null}` {
		t.Errorf("tags: %s", b)
	}
	for _, tc := range []struct {
		in        string
		keep, clr bool
		plain     string
		ok        bool
	}{
		{`"__secret__"`, true, false, "", false},
		{`null`, true, false, "", false},
		{`"k1"`, false, false, "k1", true},
		{`""`, false, false, "", true},
	} {
		v := secrets.Clear()
		if err := json.Unmarshal([]byte(tc.in), &v); err != nil {
			t.Fatal(err)
		}
		plain, ok := v.Plaintext()
		if v.IsKeep() != tc.keep || v.IsClear() != tc.clr || plain != tc.plain || ok != tc.ok {
			t.Errorf("%s decoded as %v (plaintext %q, %v)", tc.in, v, plain, ok)
		}
	}
	var v secrets.Value
	if err := json.Unmarshal([]byte(`12`), &v); err == nil {
		t.Error("a number decoded")
	}
}

// TestStructKeepsThenClears: a Go struct with a Value field stores a
// secret, keeps it with the zero Value (also after a read-modify-write
// round trip, and with omitzero leaving the column out), clears it with
// Clear; Keep on a table without an entity key is refused, not turned
// into NULL.
func TestStructKeepsThenClears(t *testing.T) {
	f := newFixture(t, nil)
	ctx := ctxT(t)
	env := f.in.Env()
	appendURI := "append." + env["SWARM_KEY"] + "." + env["APP_KEY"] + ".credentials"
	m1 := &client.Query{Limit: 100, FilterAnd: []client.Filter{client.Where("machine", "=", "m1")}}

	f.put(t, credential{Tsp: t0, Machine: "m1", State: "idle", APIKey: secrets.Set("k1")})
	f.put(t, credential{Tsp: t0.Add(time.Second), Machine: "m1", State: "running"}) // zero Value: keep

	rows, err := f.c.GetHistory(ctx, "credentials", &client.Query{FilterAnd: []client.Filter{client.Latest()}})
	if err != nil {
		t.Fatal(err)
	}
	read, err := client.DecodeRows[credential](rows)
	if err != nil || len(read) != 1 || !read[0].APIKey.IsKeep() {
		t.Fatalf("read back %v, %v: want the placeholder decoded as Keep", read, err)
	}
	read[0].Tsp, read[0].State = t0.Add(2*time.Second), "busy"
	f.put(t, read[0]) // read, modified, written back

	type sparse struct {
		Tsp     time.Time     `json:"tsp"`
		Machine string        `json:"machine"`
		APIKey  secrets.Value `json:"api_key,omitzero"`
	}
	if _, err := f.c.AppendToTable(ctx, "credentials", sparse{Tsp: t0.Add(3 * time.Second), Machine: "m1"}); err != nil {
		t.Fatal(err)
	}
	sent := f.callsTo(appendURI)
	if got := sent[1][0].(map[string]any)["api_key"]; got != secrets.Placeholder {
		t.Errorf("zero Value sent as %v, want the placeholder", got)
	}
	if _, has := sent[3][0].(map[string]any)["api_key"]; has {
		t.Errorf("omitzero: the column was sent: %v", sent[3])
	}

	revealed, err := f.s.Reveal(ctx, "credentials", m1)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"k1", "k1", "k1", "k1"}, column(revealed, "api_key")); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	creds, err := client.DecodeRows[credential](revealed)
	if err != nil {
		t.Fatal(err)
	}
	if plain, ok := creds[0].APIKey.Plaintext(); !ok || plain != "k1" || creds[0].State != "busy" {
		t.Errorf("revealed row decoded as %+v (%q, %v)", creds[0], plain, ok)
	}
	stored := f.p.TableRows(f.in.Realm(), "credentials")
	if stored[0]["api_key"] != stored[3]["api_key"] {
		t.Errorf("a kept secret was re-encrypted: %v, %v", stored[0]["api_key"], stored[3]["api_key"])
	}

	f.put(t, credential{Tsp: t0.Add(4 * time.Second), Machine: "m1", APIKey: secrets.Clear()})
	f.put(t, credential{Tsp: t0.Add(5 * time.Second), Machine: "m1", State: "kept NULL"})
	revealed, err = f.s.Reveal(ctx, "credentials", &client.Query{Limit: 3, FilterAnd: m1.FilterAnd})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{nil, nil, "k1"}, column(revealed, "api_key")); diff != "" {
		t.Errorf("cleared, then kept NULL (-want +got):\n%s", diff)
	}

	type token struct {
		Tsp   time.Time     `json:"tsp"`
		Token secrets.Value `json:"token"`
	}
	_, err = f.c.AppendToTable(ctx, "tokens", token{Tsp: t0})
	if client.WampURI(err) != "sys.dataservice.error.secret_sentinel_unresolvable" {
		t.Errorf("Keep on a table without entity key: %v", err)
	}
}

// TestEqualSecretsStoredApart: two rows with the same secret store
// different ciphertext, and both verify.
func TestEqualSecretsStoredApart(t *testing.T) {
	f := newFixture(t, nil)
	ctx := ctxT(t)
	type token struct {
		Tsp   time.Time     `json:"tsp"`
		Token secrets.Value `json:"token"`
	}
	const secret = "shared-secret"
	if _, err := f.c.AppendRowsToTable(ctx, "tokens", []token{{t0, secrets.Set(secret)}, {t0.Add(time.Second), secrets.Set(secret)}}); err != nil {
		t.Fatal(err)
	}
	stored := f.p.TableRows(f.in.Realm(), "tokens")
	a, _ := stored[0]["token"].(string)
	b, _ := stored[1]["token"].(string)
	if a == b || !strings.HasPrefix(a, "ifsec:1:") || !strings.HasPrefix(b, "ifsec:1:") || strings.Contains(a+b, secret) {
		t.Errorf("stored %q and %q: want two different ifsec:1: ciphertexts", a, b)
	}
	plain := f.p.DecryptedTableRows(f.in.Realm(), "tokens")
	if plain[0]["token"] != secret || plain[1]["token"] != secret {
		t.Errorf("decrypted %v", plain)
	}
	res, err := f.s.Verify(ctx, "tokens", "token", secret, &client.Query{Limit: 2, Offset: 1})
	if err != nil || res != (secrets.VerifyResult{Match: true, Checked: 1}) {
		t.Errorf("verify the older row: %+v, %v", res, err)
	}
}

// TestValueNeverPrintsPlaintext: fmt with any verb and log/slog show
// what a Value does, never its plaintext.
func TestValueNeverPrintsPlaintext(t *testing.T) {
	const plain = "sk-do-not-print"
	v := secrets.Set(plain)
	row := credential{Machine: "m1", APIKey: v}
	var out []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%d", "%10.3v"} {
		out = append(out, fmt.Sprintf(verb, v), fmt.Sprintf(verb, row), fmt.Sprintf(verb, &row))
	}
	out = append(out, fmt.Sprint(v), fmt.Sprintln(v, []secrets.Value{v}, map[string]secrets.Value{"k": v}), v.String())
	var logs bytes.Buffer
	slog.New(slog.NewTextHandler(&logs, nil)).Info("text", "key", v, "row", row)
	slog.New(slog.NewJSONHandler(&logs, nil)).Info("json", "key", v)
	out = append(out, logs.String())
	for _, s := range out {
		if strings.Contains(s, plain) {
			t.Errorf("printed the plaintext: %s", s)
		}
	}
	if got := fmt.Sprint(v, secrets.Keep(), secrets.Clear()); got != "secrets.Set(…) secrets.Keep() secrets.Clear()" {
		t.Errorf("printed %q", got)
	}
}
