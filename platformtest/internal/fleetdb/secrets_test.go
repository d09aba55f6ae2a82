package fleetdb

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// secretTemplate declares a table with a secret column.
const secretTemplate = `
data:
  tables:
    - tablename: tokens
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: note, name: Note, dataType: string}
        - {id: token, name: Token, dataType: string, secret: true}
`

func newSecretBackend(tb testing.TB, s unitStore) (*DB, *backend) {
	tb.Helper()
	return newTemplateDB(tb, s, secretTemplate)
}

// TestSecretRoles: only role app may reveal or verify; every other role,
// the cross-app reader included, and an undisclosed caller get
// wamp.error.not_authorized, and their calls do not count against the
// rate limit.
func TestSecretRoles(t *testing.T) { eachStore(t, testSecretRoles) }

func testSecretRoles(t *testing.T, s unitStore) {
	db, b := newSecretBackend(t, s)
	insert(t, db, "tokens", map[string]any{"tsp": ms(0), "token": "t"})
	ctx := context.Background()
	h := &realm.Host{Realm: b.realm, Clock: fixedClock(t0), Log: slog.New(slog.DiscardHandler)}
	tb := b.table("tokens")
	for _, role := range []any{wire.RoleAppReader, "board_reader", "", nil, 7} {
		details := wamp.Dict{"caller_authid": unitWriter.Serial}
		if role != nil {
			details["caller_authrole"] = role
		}
		for range revealPerWindow + 1 {
			inv := &wamp.Invocation{Arguments: wamp.List{map[string]any{"limit": int64(1)}}, Details: details}
			if res := b.serveReveal(ctx, h, tb, inv); string(res.Err) != wire.ErrNotAuthorized {
				t.Fatalf("reveal as role %v: %q %v", role, res.Err, res.Args)
			}
			inv = &wamp.Invocation{Arguments: wamp.List{map[string]any{"column": "token", "candidate": "t"}}, Details: details}
			if res := b.serveVerify(ctx, h, tb, inv); string(res.Err) != wire.ErrNotAuthorized {
				t.Fatalf("verify as role %v: %q %v", role, res.Err, res.Args)
			}
		}
	}
	details := wamp.Dict{"caller_authid": unitWriter.Serial, "caller_authrole": wire.RoleApp}
	inv := &wamp.Invocation{Arguments: wamp.List{map[string]any{"column": "token", "candidate": "t"}}, Details: details}
	res := b.serveVerify(ctx, h, tb, inv)
	if res.Err != "" || len(res.Args) != 1 || res.Args[0].(map[string]any)["match"] != true {
		t.Fatalf("verify as role app: %q %v", res.Err, res.Args)
	}
}

// TestRateLimitWindows: a window opens with the first call, holds limit
// calls, refuses the next with the time left, and ends exactly 60 s after
// it opened; clocks moved back open a new window; operations and callers
// count apart.
func TestRateLimitWindows(t *testing.T) {
	var l rateLimits
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	for i := range 3 {
		if ok, _ := l.take("op", "a", 3, at(time.Duration(i)*time.Second)); !ok {
			t.Fatalf("call %d refused", i)
		}
	}
	if ok, wait := l.take("op", "a", 3, at(10*time.Second)); ok || wait != 50*time.Second {
		t.Errorf("fourth call: ok %v, wait %v; want refused, 50s", ok, wait)
	}
	if ok, _ := l.take("op", "b", 3, at(10*time.Second)); !ok {
		t.Error("another caller refused")
	}
	if ok, _ := l.take("other", "a", 3, at(10*time.Second)); !ok {
		t.Error("another operation refused")
	}
	if ok, _ := l.take("op", "a", 3, at(rateWindow-time.Nanosecond)); ok {
		t.Error("last instant of the window admitted")
	}
	if ok, _ := l.take("op", "a", 3, at(rateWindow)); !ok {
		t.Error("first instant of the next window refused")
	}
	for range 2 {
		l.take("op", "a", 3, at(rateWindow))
	}
	if ok, _ := l.take("op", "a", 3, at(-time.Second)); !ok {
		t.Error("clock moved back: no new window")
	}
}

// TestRateLimitPrune: ended windows are forgotten once there are many.
func TestRateLimitPrune(t *testing.T) {
	var l rateLimits
	for i := range pruneAbove {
		l.take("op", strings.Repeat("x", i), 1, t0)
	}
	l.take("op", "late", 1, t0.Add(rateWindow))
	if n := len(l.windows); n != 1 {
		t.Errorf("%d windows kept, want 1", n)
	}
}

// TestSealer: values round-trip, each sealing differs, and anything that
// is not this key's ciphertext does not open.
func TestSealer(t *testing.T) {
	s := newSealer(nil)
	a, b := s.seal("same"), s.seal("same")
	if a == b || !strings.HasPrefix(a, secretCipherPrefix) {
		t.Fatalf("sealed %q and %q", a, b)
	}
	for _, v := range []string{a, b} {
		if got, err := s.open(v); err != nil || got != "same" {
			t.Errorf("open %q = %q, %v", v, got, err)
		}
	}
	if got, err := s.open(s.seal("")); err != nil || got != "" {
		t.Errorf("empty secret: %q, %v", got, err)
	}
	tampered := a[:len(a)-2] + "AA"
	if tampered == a {
		tampered = a[:len(a)-2] + "BB"
	}
	for _, v := range []string{"plain", secretCipherPrefix + "!!", secretCipherPrefix + "AAAA", tampered, newSealer(nil).seal("same")} {
		if _, err := s.open(v); err == nil {
			t.Errorf("open %q succeeded", v)
		}
	}
	if v, err := s.plainValue(nil); v != nil || err != nil {
		t.Errorf("NULL: %v, %v", v, err)
	}
}

// BenchmarkSecretInsert measures direct inserts of a 40-byte string into
// a secret column (encrypted) against the same string into a plain string
// column (the baseline), in tsp order.
func BenchmarkSecretInsert(b *testing.B) {
	value := strings.Repeat("k", 40)
	for _, col := range []string{"note", "token"} {
		b.Run("column="+col, func(b *testing.B) {
			db, _ := newSecretBackend(b, memoryStore)
			rows := make([]map[string]any, b.N)
			for i := range rows {
				rows[i] = map[string]any{"tsp": t0.Add(time.Duration(i) * time.Millisecond), col: value}
			}
			b.ReportAllocs()
			b.ResetTimer()
			insert(b, db, "tokens", rows...)
		})
	}
}

// BenchmarkVerify100 measures a verification over 100 rows (decrypt and
// compare each) against a history read of the same 100 rows (the
// baseline), in process (no wire).
func BenchmarkVerify100(b *testing.B) {
	db, be := newSecretBackend(b, memoryStore)
	rows := make([]map[string]any, 1000)
	for i := range rows {
		rows[i] = map[string]any{"tsp": t0.Add(time.Duration(i) * time.Second), "note": "n", "token": fmt.Sprintf("token-%04d", i)}
	}
	insert(b, db, "tokens", rows...)
	query, ferr := validateSecretQuery(wireArgs(q("limit", 100)), true)
	if ferr != nil {
		b.Fatal(ferr)
	}
	tb := be.table("tokens")
	b.Run("op=history", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if out, err := be.history(context.Background(), tb, query); err != nil || len(out) != 100 {
				b.Fatal(len(out), err)
			}
		}
	})
	b.Run("op=verify", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if match, checked, err := be.verify(context.Background(), tb, query, "token", "token-0950"); err != nil || !match || checked != 100 {
				b.Fatal(match, checked, err)
			}
		}
	})
}
