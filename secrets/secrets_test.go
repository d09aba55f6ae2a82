// This file tests Reveal and Verify on the wire against the fake
// platform: answers, defaults, limits, refusals with their URIs and the
// rate limits on the platform clock.

package secrets_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/secrets"
)

func TestPlaceholderIsThePlatforms(t *testing.T) {
	if secrets.Placeholder != platformtest.SecretPlaceholder {
		t.Errorf("Placeholder %q, the platform masks with %q", secrets.Placeholder, platformtest.SecretPlaceholder)
	}
}

// seedCredentials appends 12 rows alternating machines m1 and m2, keys
// k00…k11, then a row of m3 without a key.
func seedCredentials(t *testing.T, f *fixture) {
	t.Helper()
	var rows []credential
	for i := range 12 {
		rows = append(rows, credential{Tsp: t0.Add(time.Duration(i) * time.Second), Machine: fmt.Sprintf("m%d", 1+i%2),
			State: fmt.Sprintf("s%02d", i), APIKey: secrets.Set(fmt.Sprintf("k%02d", i))})
	}
	rows = append(rows, credential{Tsp: t0.Add(time.Minute), Machine: "m3", State: "none", APIKey: secrets.Clear()})
	if _, err := f.c.AppendRowsToTable(ctxT(t), "credentials", rows); err != nil {
		t.Fatal(err)
	}
}

// TestReveal: rows newest first with plaintext, NULL as nil, the default
// limit, the projection, filters, time ranges and the latest marker; the
// caller's query is not changed.
func TestReveal(t *testing.T) {
	f := newFixture(t, nil)
	seedCredentials(t, f)
	ctx := ctxT(t)

	rows, err := f.s.Reveal(ctx, "credentials", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{nil, "k11", "k10", "k09", "k08", "k07", "k06", "k05", "k04", "k03"}
	if diff := cmp.Diff(want, column(rows, "api_key")); diff != "" {
		t.Errorf("default reveal: 10 rows newest first (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{map[string]any{"limit": int64(10), "offset": int64(0)}}, f.callsTo("secret.reveal.credentials")[0]); diff != "" {
		t.Errorf("default payload (-want +got):\n%s", diff)
	}

	q := &client.Query{Limit: 3, Offset: 1, Columns: []string{"state"}, FilterAnd: []client.Filter{client.Where("machine", "=", "m1")}}
	rows, err = f.s.Reveal(ctx, "credentials", q)
	if err != nil {
		t.Fatal(err)
	}
	serial := f.in.Device().Serial()
	key := int64(f.in.Device().Key())
	wantRows := []client.Row{
		{"tsp": t0.Add(8 * time.Second).Format("2006-01-02T15:04:05.000Z"), "device_key": key, "authid": serial, "state": "s08", "api_key": "k08"},
		{"tsp": t0.Add(6 * time.Second).Format("2006-01-02T15:04:05.000Z"), "device_key": key, "authid": serial, "state": "s06", "api_key": "k06"},
		{"tsp": t0.Add(4 * time.Second).Format("2006-01-02T15:04:05.000Z"), "device_key": key, "authid": serial, "state": "s04", "api_key": "k04"},
	}
	if diff := cmp.Diff(wantRows, rows); diff != "" {
		t.Errorf("projection: requested columns and every secret column (-want +got):\n%s", diff)
	}
	if q.Limit != 3 || q.Offset != 1 || len(q.Columns) != 1 {
		t.Errorf("query changed: %+v", q)
	}

	rows, err = f.s.Reveal(ctx, "credentials", &client.Query{FilterAnd: []client.Filter{client.Latest()}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"m3", "m2", "m1"}, column(rows, "machine")); diff != "" {
		t.Errorf("latest per machine (-want +got):\n%s", diff)
	}
	rows, err = f.s.Reveal(ctx, "credentials", &client.Query{Limit: 100, TimeRange: client.Between(t0.Add(2*time.Second), t0.Add(4*time.Second))})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{"k03", "k02"}, column(rows, "api_key")); diff != "" {
		t.Errorf("time range (-want +got):\n%s", diff)
	}

	// Every other read path shows the placeholder.
	hist, err := f.c.GetHistory(ctx, "credentials", &client.Query{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{secrets.Placeholder, nil}, column(hist, "api_key")); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
}

// TestVerify: the newest row by default, the rows a query selects
// otherwise; checked counts them; the caller's query is not changed; the
// payload carries column and candidate next to the query.
func TestVerify(t *testing.T) {
	f := newFixture(t, nil)
	seedCredentials(t, f)
	ctx := ctxT(t)
	m1 := []client.Filter{client.Where("machine", "=", "m1")}
	for _, tc := range []struct {
		name      string
		candidate string
		q         *client.Query
		want      secrets.VerifyResult
	}{
		{"newest row has no key", "k11", nil, secrets.VerifyResult{Match: false, Checked: 1}},
		{"newest of m1", "k10", &client.Query{FilterAnd: m1}, secrets.VerifyResult{Match: true, Checked: 1}},
		{"older key of m1", "k08", &client.Query{FilterAnd: m1}, secrets.VerifyResult{Match: false, Checked: 1}},
		{"older key within the limit", "k08", &client.Query{Limit: 2, FilterAnd: m1}, secrets.VerifyResult{Match: true, Checked: 2}},
		{"no such machine", "k08", &client.Query{Limit: 5, FilterAnd: []client.Filter{client.Where("machine", "=", "m9")}}, secrets.VerifyResult{}},
		{"latest rows", "k11", &client.Query{Limit: 100, FilterAnd: []client.Filter{client.Latest()}}, secrets.VerifyResult{Match: true, Checked: 3}},
		{"prefix is no match", "k1", &client.Query{Limit: 100}, secrets.VerifyResult{Checked: 13}},
	} {
		got, err := f.s.Verify(ctx, "credentials", "api_key", tc.candidate, tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got != tc.want {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	q := &client.Query{FilterAnd: m1}
	if _, err := f.s.Verify(ctx, "credentials", "api_key", "k10", q); err != nil || q.Limit != 0 {
		t.Errorf("query changed (%+v) or %v", q, err)
	}
	calls := f.callsTo("secret.verify.credentials")
	want := []any{map[string]any{"limit": int64(1), "offset": int64(0), "column": "api_key", "candidate": "k11"}}
	if diff := cmp.Diff(want, calls[0]); diff != "" {
		t.Errorf("default payload (-want +got):\n%s", diff)
	}
}

// TestRefusals: every refusal keeps its URI (errors.Is with the Err
// variables, client.WampURI) inside an OpError naming the operation; a
// limit over 100 is sent as given and refused by the data backend; a table
// without secret columns fails with client.ErrNotServed at once.
func TestRefusals(t *testing.T) {
	f := newFixture(t, nil)
	seedCredentials(t, f)
	ctx := ctxT(t)
	secretFilter := []client.Filter{client.Or(client.Where("state", "=", "x"), client.IsNotNull("api_key"))}
	reveal := func(table string, q *client.Query) error { _, err := f.s.Reveal(ctx, table, q); return err }
	verify := func(table, col string, q *client.Query) error {
		_, err := f.s.Verify(ctx, table, col, "k10", q)
		return err
	}
	for _, tc := range []struct {
		name string
		err  error
		op   string
		want error
	}{
		{"reveal limit 101", reveal("credentials", &client.Query{Limit: 101}), "RevealSecrets", secrets.ErrInvalidLimit},
		{"verify limit 101", verify("credentials", "api_key", &client.Query{Limit: 101}), "VerifySecret", secrets.ErrInvalidLimit},
		{"reveal secret filter", reveal("credentials", &client.Query{FilterAnd: secretFilter}), "RevealSecrets", secrets.ErrSecretColumn},
		{"verify secret filter", verify("credentials", "api_key", &client.Query{FilterAnd: secretFilter}), "VerifySecret", secrets.ErrSecretColumn},
		{"verify plain column", verify("credentials", "state", nil), "VerifySecret", secrets.ErrNotASecretColumn},
		{"verify unknown column", verify("credentials", "nosuch", nil), "VerifySecret", secrets.ErrNotASecretColumn},
		{"reveal without secrets", reveal("readings", nil), "RevealSecrets", client.ErrNotServed},
		{"verify undeclared table", verify("nosuch", "api_key", nil), "VerifySecret", client.ErrNotServed},
		{"reveal limit 10001", reveal("credentials", &client.Query{Limit: 10001}), "RevealSecrets", client.ErrInvalidArgument},
		{"verify blank column", verify("credentials", " ", nil), "VerifySecret", client.ErrInvalidArgument},
		{"reveal blank table", reveal(" credentials", nil), "RevealSecrets", client.ErrInvalidArgument},
	} {
		var oe *client.OpError
		if !errors.Is(tc.err, tc.want) || !errors.As(tc.err, &oe) || oe.Op != tc.op {
			t.Errorf("%s: %v, want an OpError of %s matching %v", tc.name, tc.err, tc.op, tc.want)
		}
	}
	if got := f.callsTo("secret.reveal.credentials"); len(got) == 0 || got[0][0].(map[string]any)["limit"] != int64(101) {
		t.Errorf("limit 101 not sent as given: %v", got)
	}
	err := reveal("readings", nil)
	if client.WampURI(err) != "wamp.error.no_such_procedure" || !strings.Contains(err.Error(), "secret: true") {
		t.Errorf("no secret columns: %v, want the no_such_procedure refusal and the hint", err)
	}

	// A filter on a secret column is refused in the other reads too.
	if _, err := f.c.GetHistory(ctx, "credentials", &client.Query{FilterAnd: secretFilter}); !errors.Is(err, secrets.ErrSecretColumn) {
		t.Errorf("history with a secret filter: %v", err)
	}
	_, err = f.c.GetSeriesHistory(ctx, "credentials", client.SeriesQuery{Metrics: []client.Metric{{Ref: "level", Method: client.MAX}},
		Limit: 10, TimeRange: *client.Since(t0), FilterAnd: []client.Filter{client.IsNull("api_key")}})
	if !errors.Is(err, secrets.ErrSecretColumn) {
		t.Errorf("series with a secret filter: %v", err)
	}

	// The router's refusal of a caller that is not the app's own container
	// keeps its URI (the data backend's own check is tested in package
	// fleetdb: no other role can call on the fake's router yet).
	cancel := f.p.Refuse(platformtest.Refusal{Kind: platformtest.KindCall, URI: "secret.verify.credentials", Times: 1})
	defer cancel()
	if err := verify("credentials", "api_key", nil); !errors.Is(err, secrets.ErrNotAuthorized) {
		t.Errorf("not authorized: %v", err)
	}
}

// TestRateLimits: 30 reveals and 120 verifications per minute of
// platform time; the next is ErrRateLimited until the window ends, which
// the test crosses by moving the platform clock.
func TestRateLimits(t *testing.T) {
	f := newFixture(t, nil)
	seedCredentials(t, f)
	ctx := ctxT(t)
	reveal := func() error { _, err := f.s.Reveal(ctx, "credentials", &client.Query{Limit: 1}); return err }
	verify := func() error { _, err := f.s.Verify(ctx, "credentials", "api_key", "k10", nil); return err }
	for i := range 30 {
		if err := reveal(); err != nil {
			t.Fatalf("reveal %d: %v", i, err)
		}
	}
	if err := reveal(); !errors.Is(err, secrets.ErrRateLimited) {
		t.Fatalf("31st reveal: %v, want ErrRateLimited", err)
	}
	for i := range 120 {
		if err := verify(); err != nil {
			t.Fatalf("verify %d: %v", i, err)
		}
	}
	if err := verify(); !errors.Is(err, secrets.ErrRateLimited) {
		t.Fatalf("121st verify: %v, want ErrRateLimited", err)
	}
	f.p.Clock().Advance(45 * time.Second) // still inside the window, whatever the test's own pace
	if err := reveal(); !errors.Is(err, secrets.ErrRateLimited) {
		t.Errorf("reveal 45 s later: %v, want ErrRateLimited", err)
	}
	f.p.Clock().Advance(15 * time.Second) // past its end
	if err := reveal(); err != nil {
		t.Errorf("reveal in the next window: %v", err)
	}
	if err := verify(); err != nil {
		t.Errorf("verify in the next window: %v", err)
	}
}

// TestNullOnEveryPath: a NULL secret is null in history, feeds, reveal
// and storage, and never matches in Verify, not even the empty candidate.
func TestNullOnEveryPath(t *testing.T) {
	f := newFixture(t, nil)
	ctx := ctxT(t)
	feed := make(chan client.Row, 4)
	if _, err := f.c.SubscribeToTable(ctx, "credentials", func(_ context.Context, ev *client.TableEvent) { feed <- ev.Row }); err != nil {
		t.Fatal(err)
	}
	f.put(t, credential{Tsp: t0, Machine: "m1", APIKey: secrets.Set("k1")})
	f.put(t, credential{Tsp: t0.Add(time.Second), Machine: "m2", APIKey: secrets.Clear()})
	var fed []client.Row
	for range 2 {
		select {
		case r := <-feed:
			fed = append(fed, r)
		case <-ctx.Done():
			t.Fatal("no feed event")
		}
	}
	hist, err := f.c.GetHistory(ctx, "credentials", nil)
	if err != nil {
		t.Fatal(err)
	}
	revealed, err := f.s.Reveal(ctx, "credentials", nil)
	if err != nil {
		t.Fatal(err)
	}
	stored := f.p.TableRows(f.in.Realm(), "credentials")
	for _, tc := range []struct {
		path string
		got  []any
		want []any
	}{
		{"feed", column(fed, "api_key"), []any{secrets.Placeholder, nil}},
		{"history", column(hist, "api_key"), []any{secrets.Placeholder, nil}},
		{"reveal", column(revealed, "api_key"), []any{nil, "k1"}},
		{"storage", []any{stored[1]["api_key"]}, []any{nil}},
	} {
		if diff := cmp.Diff(tc.want, tc.got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.path, diff)
		}
	}
	for _, candidate := range []string{"", "null", secrets.Placeholder} {
		res, err := f.s.Verify(ctx, "credentials", "api_key", candidate, nil)
		if err != nil || res != (secrets.VerifyResult{Checked: 1}) {
			t.Errorf("verify %q against NULL: %+v, %v", candidate, res, err)
		}
	}
}
