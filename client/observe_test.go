// This file tests the observation hooks, Stats and the trace seam end to
// end against the fake platform.

package client_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
)

// traceKey is the context key of the test propagator.
type traceKey struct{}

// testTrace is what the test propagator keeps in a context.
type testTrace struct{ parent, state string }

// testPropagator keeps the trace context as a plain value in the context.
type testPropagator struct{}

func (testPropagator) Inject(ctx context.Context) (string, string) {
	tr, _ := ctx.Value(traceKey{}).(testTrace)
	return tr.parent, tr.state
}

func (testPropagator) Extract(ctx context.Context, parent, state string) context.Context {
	return context.WithValue(ctx, traceKey{}, testTrace{parent, state})
}

func traceIn(ctx context.Context) testTrace {
	tr, _ := ctx.Value(traceKey{}).(testTrace)
	return tr
}

// recorder implements every hook interface and records what it is told.
type recorder struct {
	mu                     sync.Mutex
	dials, dialed, joins   int
	leaves                 []error
	states                 []client.State
	sends                  []client.Op
	publishes, appends     []client.Outcome
	calls                  map[string]client.Outcome // by template
	processStarts          []client.Op
	events                 []client.Delivery
	invocations            []client.Outcome
	refusals               []string
	sendCtxOK, procCtxOK   bool
	pongs                  int
	publishOps, appendsOps []client.Op
	note                   chan struct{} // a hook recorded an event or an invocation (waitFor)
}

// newRecorder returns an empty recorder.
func newRecorder() *recorder { return &recorder{note: make(chan struct{}, 1)} }

// notify wakes waitFor; the caller holds mu.
func (r *recorder) notify() {
	select {
	case r.note <- struct{}{}:
	default:
	}
}

// waitFor waits until done (called under mu) holds: the hooks of a
// delivery run after its handler returned, so a test that saw the handler
// run waits for them before it looks.
func (r *recorder) waitFor(ctx context.Context, t *testing.T, what string, done func() bool) {
	t.Helper()
	for {
		r.mu.Lock()
		ok := done()
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.note:
		case <-ctx.Done():
			t.Fatalf("waiting for %s: %v", what, ctx.Err())
		}
	}
}

type hookMark struct{}

func (r *recorder) OnDialStart(string) { r.mu.Lock(); r.dials++; r.mu.Unlock() }
func (r *recorder) OnDialDone(_ string, _ time.Duration, err error) {
	r.mu.Lock()
	if err == nil {
		r.dialed++
	}
	r.mu.Unlock()
}
func (r *recorder) OnJoin(string, uint64, bool) { r.mu.Lock(); r.joins++; r.mu.Unlock() }
func (r *recorder) OnLeave(_ string, _ uint64, reason error) {
	r.mu.Lock()
	r.leaves = append(r.leaves, reason)
	r.mu.Unlock()
}
func (r *recorder) OnStateChange(_, to client.State) {
	r.mu.Lock()
	r.states = append(r.states, to)
	r.mu.Unlock()
}
func (r *recorder) OnKeepalive(time.Duration) { r.mu.Lock(); r.pongs++; r.mu.Unlock() }
func (r *recorder) OnSendStart(ctx context.Context, op client.Op) context.Context {
	r.mu.Lock()
	r.sends = append(r.sends, op)
	r.mu.Unlock()
	return context.WithValue(ctx, hookMark{}, op.URI)
}
func (r *recorder) OnPublish(ctx context.Context, op client.Op, out client.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.publishes = append(r.publishes, out)
	r.publishOps = append(r.publishOps, op)
	r.sendCtxOK = ctx.Value(hookMark{}) == op.URI
}
func (r *recorder) OnAppend(_ context.Context, op client.Op, out client.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.appends = append(r.appends, out)
	r.appendsOps = append(r.appendsOps, op)
}
func (r *recorder) OnCall(_ context.Context, op client.Op, out client.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.calls == nil {
		r.calls = map[string]client.Outcome{}
	}
	r.calls[op.Template] = out
}
func (r *recorder) OnProcessStart(ctx context.Context, op client.Op) context.Context {
	r.mu.Lock()
	r.processStarts = append(r.processStarts, op)
	r.mu.Unlock()
	return context.WithValue(ctx, hookMark{}, "process")
}
func (r *recorder) OnEvent(ctx context.Context, _ client.Op, d client.Delivery) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, d)
	r.procCtxOK = ctx.Value(hookMark{}) == "process"
	r.notify()
}
func (r *recorder) OnInvocation(_ context.Context, _ client.Op, out client.Outcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.invocations = append(r.invocations, out)
	r.notify()
}
func (r *recorder) OnRefusal(_ client.Op, uri string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.refusals = append(r.refusals, uri)
}

func TestWithHooksRefusesAValueWithoutHooks(t *testing.T) {
	_, err := client.New(client.WithEnv(newFleet(t).a.Env()), client.WithHooks(42))
	if !errors.Is(err, client.ErrInvalidArgument) || !strings.Contains(err.Error(), "int implements no hook interface") {
		t.Fatalf("New with WithHooks(42) = %v, want ErrInvalidArgument naming int", err)
	}
}

func TestTemplate(t *testing.T) {
	for in, want := range map[string]string{
		"append.12.34.readings":  "append.{key}.{key}.readings",
		"12.7.34.fn":             "{key}.{key}.{key}.fn",
		"com.example.temp":       "com.example.temp",
		"com.x1.2b":              "com.x1.2b",
		"transformed.sensordata": "transformed.sensordata",
	} {
		if got := client.Template(in); got != want {
			t.Errorf("Template(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestHooksAndTraceOverTheWire(t *testing.T) {
	for _, ser := range []client.Serializer{client.MsgPack, client.JSON} {
		t.Run(ser.String(), func(t *testing.T) { testHooksAndTrace(t, ser) })
	}
}

func testHooksAndTrace(t *testing.T, ser client.Serializer) {
	f := tableFleet(t)
	ra, rb := newRecorder(), newRecorder()
	a := connect(t, f.a, client.WithHooks(ra), client.WithTracePropagation(testPropagator{}), client.WithSerializer(ser))
	b := connect(t, f.b, client.WithHooks(rb), client.WithTracePropagation(testPropagator{}), client.WithSerializer(ser))
	ctx := ctxT(t)
	const parent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	traced := context.WithValue(ctx, traceKey{}, testTrace{parent, "k=v"})

	// publish → subscriber
	got := make(chan testTrace, 1)
	if _, err := b.Subscribe(ctx, "com.example.t", func(ctx context.Context, _ *client.Event) { got <- traceIn(ctx) }); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(traced, "com.example.t", 1); err != nil {
		t.Fatal(err)
	}
	if tr := <-got; tr != (testTrace{parent, "k=v"}) {
		t.Errorf("subscriber's ctx carries %+v, want the publisher's trace", tr)
	}

	// call → callee
	inv := make(chan testTrace, 1)
	if _, err := b.Register(ctx, "echo", func(ctx context.Context, _ *client.Invocation) (any, error) {
		inv <- traceIn(ctx)
		return "ok", nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CallDeviceFunction(traced, f.b.Device().Key(), "echo"); err != nil {
		t.Fatal(err)
	}
	if tr := <-inv; tr != (testTrace{parent, "k=v"}) {
		t.Errorf("callee's ctx carries %+v, want the caller's trace", tr)
	}

	// append → stored row → the table's feed, continuing the trace
	feed := make(chan testTrace, 1)
	if _, err := b.SubscribeToTable(ctx, "sensordata", func(ctx context.Context, _ *client.TableEvent) { feed <- traceIn(ctx) }); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AppendToTable(traced, "sensordata", sensorRow{Tsp: t0, Temperature: 1}); err != nil {
		t.Fatal(err)
	}
	tr := <-feed
	parts := strings.Split(tr.parent, "-")
	if len(parts) != 4 || parts[1] != "0af7651916cd43dd8448eb211c80319c" || parts[2] == "b7ad6b7169203331" || tr.state != "k=v" {
		t.Errorf("the feed of the stored row carries %+v, want trace 0af7651916cd43dd8448eb211c80319c continued by a new span", tr)
	}

	// a refusal
	if _, err := a.Call(ctx, "com.example.nobody"); err == nil {
		t.Fatal("a call of a procedure nobody registered succeeded")
	}

	// an untraced publish carries nothing
	if err := a.Publish(ctx, "com.example.t", 2); err != nil {
		t.Fatal(err)
	}
	if tr := <-got; tr != (testTrace{}) {
		t.Errorf("an untraced publication reached the subscriber with %+v", tr)
	}

	ra.mu.Lock()
	if ra.dials < 1 || ra.dialed != 1 || ra.joins != 1 {
		t.Errorf("connection hooks: %d dials, %d dialed, %d joins; want ≥1, 1, 1", ra.dials, ra.dialed, ra.joins)
	}
	if len(ra.states) == 0 || ra.states[len(ra.states)-1] != client.StateConnected {
		t.Errorf("state hooks: %v, want the last to be connected", ra.states)
	}
	if len(ra.publishes) != 2 || ra.publishes[0].Bytes == 0 || ra.publishes[0].Latency <= 0 || ra.publishes[0].Err != nil || !ra.sendCtxOK {
		t.Errorf("publish hooks: %+v (ctx from OnSendStart: %v)", ra.publishes, ra.sendCtxOK)
	}
	if len(ra.appends) != 1 || ra.appends[0].Bytes == 0 || ra.appendsOps[0].Table != "sensordata" ||
		ra.appendsOps[0].Template != "append.{key}.{key}.sensordata" {
		t.Errorf("append hooks: %+v %+v", ra.appends, ra.appendsOps)
	}
	if out, ok := ra.calls["{key}.{key}.{key}.DEV.echo"]; !ok || out.Err != nil || out.Bytes == 0 {
		t.Errorf("call hooks by template: %+v", ra.calls)
	}
	if len(ra.refusals) != 1 || ra.refusals[0] != "wamp.error.no_such_procedure" {
		t.Errorf("refusals: %v", ra.refusals)
	}
	ra.mu.Unlock()

	rb.waitFor(ctx, t, "the hooks of three events and an invocation", func() bool { return len(rb.events) >= 3 && len(rb.invocations) >= 1 })
	rb.mu.Lock()
	if len(rb.events) != 3 || !rb.procCtxOK {
		t.Errorf("event hooks: %+v (ctx from OnProcessStart: %v)", rb.events, rb.procCtxOK)
	}
	if len(rb.invocations) != 1 || rb.invocations[0].Err != nil {
		t.Errorf("invocation hooks: %+v", rb.invocations)
	}
	rb.mu.Unlock()

	st := a.Stats()
	if st.MessagesOut < 5 || st.MessagesIn < 5 || st.BytesOut == 0 || st.BytesIn == 0 || st.Sessions != 1 ||
		st.Reconnects != 0 || st.PendingCalls != 0 || st.PendingAcks != 0 {
		t.Errorf("Stats = %+v", st)
	}

	if err := a.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	ra.mu.Lock()
	defer ra.mu.Unlock()
	if len(ra.leaves) != 1 || !errors.Is(ra.leaves[0], client.ErrStopped) {
		t.Errorf("leave hooks: %v, want one ErrStopped", ra.leaves)
	}
}

func TestStatsCountReconnects(t *testing.T) {
	f := newFleet(t)
	r := newRecorder()
	c := connect(t, f.a, client.WithHooks(r))
	f.p.DropConnections()
	ctx := ctxT(t)
	for c.Stats().Sessions < 2 {
		if err := c.Publish(ctx, "com.example.t", 1); err != nil && ctx.Err() != nil {
			t.Fatal(err)
		}
	}
	if st := c.Stats(); st.Reconnects != 1 {
		t.Errorf("Stats after one drop = %+v, want 1 reconnect", st)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.leaves) != 1 || r.joins != 2 {
		t.Errorf("after one drop: leaves %v, joins %d; want 1 and 2", r.leaves, r.joins)
	}
}

// pongs hands every keepalive round trip to a channel.
type pongs chan time.Duration

func (p pongs) OnKeepalive(rtt time.Duration) {
	select {
	case p <- rtt:
	default:
	}
}

func TestKeepaliveHook(t *testing.T) {
	f := newFleet(t)
	p := make(pongs, 1)
	connect(t, f.a, client.WithHooks(p), client.WithKeepalive(client.MinKeepaliveIdle, client.MinPongTimeout))
	select {
	case rtt := <-p:
		if rtt <= 0 {
			t.Errorf("keepalive round trip %v, want positive", rtt)
		}
	case <-ctxT(t).Done():
		t.Fatal("no keepalive round trip reported on an idle link")
	}
}
