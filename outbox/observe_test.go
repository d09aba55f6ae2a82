// This file tests the outbox's hooks, its depth in the client's Stats and
// the trace context a row keeps on disk.

package outbox_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/outbox"
	"github.com/flockgo/ironflock/platformtest"
)

type traceKey struct{}

// propagator keeps a traceparent as a plain value in the context.
type propagator struct{}

func (propagator) Inject(ctx context.Context) (string, string) {
	p, _ := ctx.Value(traceKey{}).(string)
	return p, "st=" + p
}

func (propagator) Extract(ctx context.Context, parent, state string) context.Context {
	if state != "st="+parent {
		parent = "bad state " + state
	}
	return context.WithValue(ctx, traceKey{}, parent)
}

// hookLog records what the outbox's hooks are told.
type hookLog struct {
	mu        sync.Mutex
	enqueued  map[string]string // id → the trace of the Append's ctx
	delivered map[string]string // id → the trace of the ctx delivered in
	depths    []outbox.Depth
	dead      []string
}

func (h *hookLog) OnEnqueue(ctx context.Context, _ string, ids []string, bytes int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, _ := ctx.Value(traceKey{}).(string)
	for _, id := range ids {
		h.enqueued[id] = p
	}
}

func (h *hookLog) OnDeliver(ctx context.Context, _, id string, age time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	p, _ := ctx.Value(traceKey{}).(string)
	h.delivered[id] = p
}

func (h *hookLog) OnDepth(d outbox.Depth) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.depths = append(h.depths, d)
}

func (h *hookLog) OnDeadLetter(_, id, uri string, _ error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dead = append(h.dead, id+" "+uri)
}

func TestRowKeepsItsTraceAcrossReopen(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t, client.WithTracePropagation(propagator{}))
	dir := t.TempDir()
	f.p.Down()
	ob, err := outbox.Open(f.c, dir, outbox.WithIDColumn("row_id"), outbox.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	want := map[string]string{}
	for i, p := range []string{"trace-a", "trace-b", ""} {
		id, err := ob.Append(context.WithValue(ctx, traceKey{}, p), "readings", reading{Tsp: t0, N: int64(i + 1)})
		if err != nil {
			t.Fatal(err)
		}
		want[id] = p
	}
	if st := f.c.Stats(); st.OutboxRows != 3 || st.OutboxBytes <= 0 {
		t.Errorf("client Stats with 3 rows queued = %+v", st)
	}
	if err := ob.Close(); err != nil {
		t.Fatal(err)
	}
	if st := f.c.Stats(); st.OutboxRows != 0 {
		t.Errorf("client Stats after Close = %+v, want no outbox rows", st)
	}

	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	h := &hookLog{enqueued: map[string]string{}, delivered: map[string]string{}}
	ob = f.open(t, dir, outbox.WithHooks(h))
	id, err := ob.Append(context.WithValue(ctx, traceKey{}, "trace-c"), "readings", reading{Tsp: t0, N: 4})
	if err != nil {
		t.Fatal(err)
	}
	want[id] = "trace-c"
	flush(t, ob)
	f.wantN(t, "readings", 1, 2, 3, 4)
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, p := range want {
		if got, ok := h.delivered[id]; !ok || got != p {
			t.Errorf("row %s delivered in trace %q (told: %v), want %q", id, got, ok, p)
		}
	}
	if h.enqueued[id] != "trace-c" || len(h.enqueued) != 1 {
		t.Errorf("enqueue hooks: %v, want the one row appended after the reopen in trace-c", h.enqueued)
	}
	if len(h.depths) == 0 || h.depths[len(h.depths)-1].Rows != 0 || h.depths[len(h.depths)-1].Bytes != 0 {
		t.Errorf("depth hooks: %+v, want the last empty", h.depths)
	}
	for _, d := range h.depths {
		if d.Rows > 0 && (d.Oldest.IsZero() || d.OldestAge < 0) {
			t.Errorf("depth %+v: a non-empty queue without its oldest row", d)
		}
	}
}

func TestWithHooksRefusesAValueWithoutHooks(t *testing.T) {
	f := newFixture(t)
	_, err := outbox.Open(f.c, t.TempDir(), outbox.WithHooks("nothing"))
	if !errors.Is(err, outbox.ErrInvalidArgument) {
		t.Errorf("Open with WithHooks(\"nothing\") = %v, want ErrInvalidArgument", err)
	}
}

// A dead letter keeps its row's trace context on disk, and Retry delivers
// the row in it, after a reopen too.
func TestRetryKeepsTheTrace(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t, client.WithTracePropagation(propagator{}))
	refuse := f.p.Intercept(platformtest.Fault{Kind: platformtest.KindCall, URI: f.bulkProc("readings"), Fail: wire.ErrSecretCiphertext,
		Args: []any{"refused"}})
	defer refuse.Cancel()
	dir := t.TempDir()
	ob, err := outbox.Open(f.c, dir, outbox.WithIDColumn("row_id"), outbox.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	traced, err := ob.Append(context.WithValue(ctx, traceKey{}, "trace-r"), "readings", reading{Tsp: t0, N: 1})
	if err != nil {
		t.Fatal(err)
	}
	untraced, err := ob.Append(ctx, "readings", reading{Tsp: t0, N: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := ob.Flush(ctx); !errors.Is(err, outbox.ErrUndelivered) {
		t.Fatalf("Flush = %v, want ErrUndelivered", err)
	}
	refuse.Cancel()
	if err := ob.Close(); err != nil {
		t.Fatal(err)
	}

	h := &hookLog{enqueued: map[string]string{}, delivered: map[string]string{}}
	ob = f.open(t, dir, outbox.WithHooks(h))
	got := map[string][2]string{}
	for _, d := range deadLetters(t, ob) {
		got[d.ID] = [2]string{d.TraceParent, d.TraceState}
	}
	want := map[string][2]string{traced: {"trace-r", "st=trace-r"}, untraced: {"", ""}}
	if len(got) != 2 || got[traced] != want[traced] || got[untraced] != want[untraced] {
		t.Fatalf("dead letters' trace contexts %v, want %v", got, want)
	}
	if n, err := ob.Retry(ctx, traced, untraced); err != nil || n != 2 {
		t.Fatalf("Retry = %d, %v; want 2, nil", n, err)
	}
	flush(t, ob)
	f.wantN(t, "readings", 1, 2)
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, p := range map[string]string{traced: "trace-r", untraced: ""} {
		if d, ok := h.delivered[id]; !ok || d != p {
			t.Errorf("retried row %s delivered in trace %q (told: %v), want %q", id, d, ok, p)
		}
	}
}
