package platformtest

import (
	"bytes"
	"fmt"
	"log/slog"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/router"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// stalledSubscriber joins in's realm with a raw WebSocket, subscribes to
// topic and then never reads again. It returns the session ID.
func stalledSubscriber(t *testing.T, p *Platform, in *Installation, topic string) uint64 {
	t.Helper()
	ser := &serialize.MessagePackSerializer{}
	d := websocket.Dialer{Subprotocols: []string{wire.SubprotocolMsgpack}, ReadBufferSize: 1024, WriteBufferSize: 1024}
	conn, rsp, err := d.DialContext(worldtest.Ctx(t), p.URL(), nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = rsp.Body.Close()
	t.Cleanup(func() { _ = conn.Close() })
	send := func(m wamp.Message) {
		b, err := ser.Serialize(m)
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.WriteMessage(websocket.BinaryMessage, b); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() wamp.Message {
		_, b, err := conn.ReadMessage()
		if err != nil {
			t.Fatal(err)
		}
		m, err := ser.Deserialize(b)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	id, secret := in.Credentials()
	send(&wamp.Hello{Realm: wamp.URI(in.Realm()), Details: wamp.Dict{"authid": id, "authmethods": wamp.List{"wampcra"},
		"roles": wamp.Dict{"subscriber": wamp.Dict{}}}})
	ch, ok := recv().(*wamp.Challenge)
	if !ok {
		t.Fatal("no challenge")
	}
	send(&wamp.Authenticate{Signature: crsign.RespondChallenge(secret, ch, nil), Extra: wamp.Dict{}})
	welcome, ok := recv().(*wamp.Welcome)
	if !ok {
		t.Fatal("no welcome")
	}
	send(&wamp.Subscribe{Request: 1, Options: wamp.Dict{}, Topic: wamp.URI(topic)})
	if _, ok := recv().(*wamp.Subscribed); !ok {
		t.Fatal("not subscribed")
	}
	return uint64(welcome.ID)
}

// heapWatch samples the heap in use until stop, keeping the largest value.
func heapWatch() (peak func() uint64, stop func()) {
	var max atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > max.Load() {
				max.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return max.Load, func() { close(done); wg.Wait() }
}

// TestSlowSubscriberDropped: a subscriber that stops reading is dropped
// with a log line once its outbound queue passes the byte bound, and the
// router's heap stays near that bound instead of growing with the flood.
func TestSlowSubscriberDropped(t *testing.T) {
	logs := &worldtest.SyncBuffer{}
	f := newFixture(t, WithoutRecording(), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	stalled := stalledSubscriber(t, f.p, f.in2, "flood")
	pub := worldtest.Connect(t, f.p, f.in1, client.MSGPACK)

	const event, total = 1 << 20, 300 // 300 MiB in all; the queue bound is 16 MiB
	payload := bytes.Repeat([]byte{'x'}, event)
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	peak, stop := heapWatch()
	for i := range total {
		if err := pub.Publish("flood", wamp.Dict{wire.OptAcknowledge: true}, wamp.List{payload}, nil); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	if err := f.p.rt.WaitGone(worldtest.Ctx(t), stalled); err != nil {
		t.Fatalf("stalled subscriber still connected: %v", err)
	}
	stop()
	grew := int64(peak()) - int64(base)
	t.Logf("heap grew by %d MiB at most while %d MiB were published to a stalled subscriber", grew>>20, total*event>>20)
	if grew > 96<<20 {
		t.Errorf("heap grew by %d MiB: the queue of a stalled subscriber is not bounded", grew>>20)
	}
	if !strings.Contains(logs.String(), "cannot keep up") {
		t.Errorf("no log line says why the link was dropped:\n%s", logs.String())
	}
}

// TestPingsWhileWriteBlocked: the keepalive keeps running while a write to
// a subscriber that stopped reading is blocked, so the link is dropped
// although its queue is far from full: the ping cannot be written within
// the ping timeout (5 s). The write timeout is an hour here, so that only
// the keepalive can drop the link.
func TestPingsWhileWriteBlocked(t *testing.T) {
	f := newFixture(t, WithoutRecording(), WithServerKeepalive(200*time.Millisecond), withLimits(router.Limits{WriteTimeout: time.Hour}))
	stalled := stalledSubscriber(t, f.p, f.in2, "flood")
	// The platform's own session publishes: the only link on the wire is
	// the stalled subscriber's, so no other link can miss a pong under
	// load.
	host := f.p.rt.Host(f.in2.Realm())
	payload := bytes.Repeat([]byte{'x'}, 1<<20)
	for range 16 { // enough to fill the socket buffers and block the writer
		if err := host.Publish("flood", nil, wamp.List{payload}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.p.rt.WaitGone(worldtest.Ctx(t), stalled); err != nil {
		t.Fatalf("stalled subscriber still connected: %v", err)
	}
}

// TestRecordingRing: the recording keeps the newest messages within its
// count and byte bounds, or nothing when it is off.
func TestRecordingRing(t *testing.T) {
	publishAll := func(p *Platform, in *Installation, n, size int) {
		t.Helper()
		c := worldtest.Connect(t, p, in, client.MSGPACK)
		for i := range n {
			if err := c.Publish("ring", wamp.Dict{wire.OptAcknowledge: true}, wamp.List{i, strings.Repeat("x", size)}, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	seqs := func(ms []Message) []int64 {
		var out []int64
		for _, m := range ms {
			out = append(out, m.Args[0].(int64))
		}
		return out
	}
	f := newFixture(t, WithRecording(3, 0))
	publishAll(f.p, f.in1, 5, 10)
	if got := seqs(f.p.Publications()); fmt.Sprint(got) != "[2 3 4]" {
		t.Errorf("by count: kept %v, want [2 3 4]", got)
	}
	f = newFixture(t, WithRecording(0, 2500))
	publishAll(f.p, f.in1, 5, 1000)
	if got := seqs(f.p.Publications()); fmt.Sprint(got) != "[3 4]" {
		t.Errorf("by bytes: kept %v, want [3 4]", got)
	}
	if st := f.p.rt.RecordingStats(); st.Dropped != 3 || st.Bytes > 2500 {
		t.Errorf("stats %+v", st)
	}
	f = newFixture(t, WithoutRecording())
	watch := f.p.Intercept(Fault{Kind: KindPublish})
	publishAll(f.p, f.in1, 2, 10)
	if n := len(f.p.Recorded()); n != 0 {
		t.Errorf("recording off kept %d messages", n)
	}
	if len(watch.Seen()) != 2 {
		t.Error("interceptions must see messages while the recording is off")
	}
	f = newFixture(t)
	publishAll(f.p, f.in1, 50, 10)
	if n := len(f.p.Publications()); n != 50 {
		t.Errorf("default recording kept %d of 50", n)
	}
}

// TestPreAuthLimit: a link that sends more than the pre-authentication
// budget before it is admitted is closed, and sockets holding partial
// frames cost the router next to nothing. The log tells that the limit
// closed them, not nexus's 5 s wait for HELLO, which closes a silent link
// anyway.
func TestPreAuthLimit(t *testing.T) {
	leakcheck.Check(t)
	logs := &worldtest.SyncBuffer{}
	f := newFixture(t, WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	const sockets = 16
	var conns []*websocket.Conn
	for range sockets {
		c, rsp, err := websocket.DefaultDialer.DialContext(worldtest.Ctx(t), f.p.URL(), http.Header{"Sec-WebSocket-Protocol": {wire.SubprotocolMsgpack}})
		if err != nil {
			t.Fatal(err)
		}
		_ = rsp.Body.Close()
		conns = append(conns, c)
		// A frame that claims 60 MiB, of which 1 MiB is sent.
		w, err := c.NextWriter(websocket.BinaryMessage)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(bytes.Repeat([]byte{0x90}, 1<<20)) // ends with an error once the server closes
	}
	deadline, _ := worldtest.Ctx(t).Deadline()
	for i, c := range conns {
		_ = c.SetReadDeadline(deadline)
		if _, _, err := c.ReadMessage(); err == nil {
			t.Errorf("socket %d: got a message, want the link closed", i)
		} else if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
			t.Errorf("socket %d still open after sending 1 MiB before HELLO", i)
		}
		_ = c.Close()
	}
	if n := strings.Count(logs.String(), "too much sent before authentication"); n != sockets {
		t.Errorf("%d links closed for the pre-authentication limit, want %d:\n%s", n, sockets, logs)
	}
	runtime.ReadMemStats(&ms)
	grew := int64(ms.HeapInuse) - int64(base)
	t.Logf("heap grew by %d KiB for %d sockets holding partial frames", grew>>10, sockets)
	if grew > 64<<20 {
		t.Errorf("heap grew by %d MiB for %d unauthenticated sockets", grew>>20, sockets)
	}
}

// withLimits sets router limits (zero fields keep the defaults).
func withLimits(l router.Limits) Option { return func(s *settings) { s.limits = l } }

// TestUnauthenticatedCap: links waiting for authentication are capped; with
// no line to wait in (TestUnauthenticatedLine has one) one more is answered 503, and a slot frees when a waiting link joins. The
// waiting links are held deterministically: each has sent HELLO and holds
// its CHALLENGE unanswered, which the router waits for an hour here, so
// no link leaves the count by a timeout however slow the machine is.
func TestUnauthenticatedCap(t *testing.T) {
	const capacity = 8
	f := newFixture(t, withLimits(router.Limits{MaxUnauthenticated: capacity, AdmissionLine: -1, AuthResponseTimeout: time.Hour}))
	id, secret := f.in1.Credentials()
	waiting, challenges := holdPlaces(t, f, capacity) // authbusy_test.go
	d := websocket.Dialer{Subprotocols: []string{wire.SubprotocolMsgpack}}
	_, rsp, err := d.DialContext(worldtest.Ctx(t), f.p.URL(), nil)
	if err == nil || rsp == nil || rsp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("link %d: err %v, response %v, want 503", capacity+1, err, rsp)
	}
	_ = rsp.Body.Close()
	// One waiting link joins: its slot is free once WELCOME has come.
	waiting[0].Send(&wamp.Authenticate{Signature: crsign.RespondChallenge(secret, challenges[0], nil), Extra: wamp.Dict{}})
	if msg := waiting[0].Next().Msg; msg.MessageType() != wamp.WELCOME {
		t.Fatalf("answered challenge: %v", msg)
	}
	joined := worldtest.DialWire(t, f.p, false)
	joined.MustJoin(f.in1.Realm(), id, secret)
	// The default cap is 256.
	if got := router.DefaultLimits().MaxUnauthenticated; got != 256 {
		t.Errorf("default cap %d, want 256 (docs/flockd.md)", got)
	}
	if l := router.DefaultLimits(); l.AdmissionLine != 8192 || l.AdmissionWait != 5*time.Second {
		t.Errorf("default line %d waiting %v, want 8192 and 5s (docs/flockd.md)", l.AdmissionLine, l.AdmissionWait)
	}
}

// TestProtocolViolations: what cannot be decoded is answered as WAMP says.
func TestProtocolViolations(t *testing.T) {
	f := newFixture(t)
	raw := func(c *worldtest.WireClient, text string) {
		t.Helper()
		if err := c.Conn.WriteMessage(websocket.TextMessage, []byte(text)); err != nil {
			t.Fatal(err)
		}
	}
	abort := func(c *worldtest.WireClient, what string) {
		t.Helper()
		fr := c.Next()
		if a, ok := fr.Msg.(*wamp.Abort); !ok || a.Reason != wamp.ErrProtocolViolation {
			t.Fatalf("%s: got %+v, want ABORT wamp.error.protocol_violation", what, fr.Msg)
		}
		if _, err := c.NextCtx(worldtest.Ctx(t)); err != worldtest.ErrLinkClosed {
			t.Fatalf("%s: link still open after ABORT: %v", what, err)
		}
	}

	garbage := worldtest.DialWire(t, f.p, true)
	raw(garbage, `{"not": "a wamp message"}`)
	abort(garbage, "garbage before HELLO")

	c := worldtest.JoinInstallation(t, f.p, f.in1, true)
	// A CALL whose arguments are not a list: the request ID can be read.
	raw(c, `[48, 7, {}, "any.proc", "not-a-list"]`)
	fr := c.Next()
	if e, ok := fr.Msg.(*wamp.Error); !ok || e.Type != wamp.CALL || e.Request != 7 || e.Error != wire.ErrInvalidArgument {
		t.Fatalf("undecodable CALL: got %+v, want ERROR for request 7", fr.Msg)
	}
	// An acknowledged PUBLISH likewise; an unacknowledged one gets nothing.
	raw(c, `[16, 8, {}, "any.topic", "not-a-list"]`)
	raw(c, `[16, 9, {"acknowledge": true}, "any.topic", "not-a-list"]`)
	fr = c.Next()
	if e, ok := fr.Msg.(*wamp.Error); !ok || e.Type != wamp.PUBLISH || e.Request != 9 {
		t.Fatalf("undecodable acknowledged PUBLISH: got %+v, want ERROR for request 9", fr.Msg)
	}
	// The session goes on.
	req := c.NewReq()
	if fr := c.Answer(req, &wamp.Call{Request: req, Procedure: "nothing.here", Options: wamp.Dict{}}); worldtest.ErrorURI(fr.Msg) != wire.ErrNoSuchProcedure {
		t.Fatalf("session after refused requests: %+v", fr.Msg)
	}
	// A message type WAMP does not have ends the session.
	raw(c, `[255, 1, {}]`)
	abort(c, "message type 255")
}

// TestStrictAuth: in strict mode the legacy credential is refused on every
// realm (legacy_denied) and per-app credentials still join; by default the
// legacy credential joins the realm of an app installed on the device.
func TestStrictAuth(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprintf("strict=%v", strict), func(t *testing.T) {
			var opts []Option
			if strict {
				opts = append(opts, WithStrictAuth())
			}
			f := newFixture(t, opts...)
			serial := f.d1.Serial()
			msg := worldtest.DialWire(t, f.p, false).Join(f.in1.Realm(), serial, serial)
			log := f.p.AuthLog()
			last := log[len(log)-1]
			if strict {
				if worldtest.ErrorURI(msg) != wire.ErrAuthenticationFailed || last.Reason != registry.DenyLegacyDenied {
					t.Fatalf("legacy join in strict mode: %+v, log %+v", msg, last)
				}
			} else if _, ok := msg.(*wamp.Welcome); !ok || !last.Admitted {
				t.Fatalf("legacy join by default: %+v", msg)
			}
			worldtest.JoinInstallation(t, f.p, f.in1, false) // the per-app credential joins either way
		})
	}
}
