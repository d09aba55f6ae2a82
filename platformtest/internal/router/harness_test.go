// This file holds the router's test harness: a router with one app
// installed on two devices, and raw WebSocket sessions that join it with
// the legacy credential and read only when told to.

package router

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// wallClock is platform time as real time.
type wallClock struct{}

func (wallClock) Now() time.Time                         { return time.Now() }
func (wallClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// logSink is a log sink safe for concurrent writers.
type logSink struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *logSink) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *logSink) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testRouter is a running router with one realm.
type testRouter struct {
	rt      *Router
	url     string
	realm   realm.Info
	serials [2]string // the two devices' serials: their legacy credentials
	logs    *logSink
}

// newTestRouter starts a router with cfg (Registry, Clock, Log and
// Handler are set here) and one app installed on two devices.
func newTestRouter(t testing.TB, cfg Config) *testRouter {
	t.Helper()
	return newTestRouterWith(t, cfg, nil)
}

// newTestRouterWith is newTestRouter calling before, when not nil, on the
// router before it starts.
func newTestRouterWith(t testing.TB, cfg Config, before func(*Router)) *testRouter {
	t.Helper()
	tr := &testRouter{logs: &logSink{}}
	cfg.Log = slog.New(slog.NewTextHandler(tr.logs, nil))
	cfg.Clock = wallClock{}
	cfg.Registry = registry.New(registry.Config{Clock: cfg.Clock, Log: cfg.Log})
	var err error
	cfg.Registry.Do(func(s *registry.State) {
		var pr *registry.Project
		var a *registry.App
		if pr, err = s.AddProject("bench", registry.KeySpec(0)); err != nil {
			return
		}
		if a, err = s.AddApp("bench", "", "", registry.KeySpec(0)); err != nil {
			return
		}
		for i, name := range []string{"one", "two"} {
			var d *registry.Device
			if d, err = s.AddDevice(name, registry.Spec{Project: pr}); err != nil {
				return
			}
			if _, err = s.Install(d, a, "DEV"); err != nil {
				return
			}
			tr.serials[i] = d.Serial
		}
		tr.realm = s.Realms()[0]
	})
	if err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	cfg.Handler = mux
	tr.rt = New(cfg)
	if before != nil {
		before(tr.rt)
	}
	mux.Handle(wire.RouterPath, tr.rt)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := tr.rt.Start(ln); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tr.rt.Close)
	tr.url = "ws://" + ln.Addr().String() + wire.RouterPath
	return tr
}

// rawSession is a joined session over a raw WebSocket.
type rawSession struct {
	t    testing.TB
	conn *websocket.Conn
	ser  serialize.Serializer
	id   wamp.ID
}

// join joins as device i (0 or 1) with roles; recvBuf, when above 0,
// shrinks the socket's receive buffer so that a session that does not
// read stalls its link soon.
func (tr *testRouter) join(t testing.TB, i int, json bool, roles wamp.Dict, recvBuf int) *rawSession {
	t.Helper()
	proto, ser := wire.SubprotocolMsgpack, serialize.Serializer(&serialize.MessagePackSerializer{})
	if json {
		proto, ser = wire.SubprotocolJSON, &serialize.JSONSerializer{}
	}
	d := websocket.Dialer{Subprotocols: []string{proto}, ReadBufferSize: 1024, WriteBufferSize: 1024,
		NetDialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if err == nil && recvBuf > 0 {
				err = c.(*net.TCPConn).SetReadBuffer(recvBuf)
			}
			return c, err
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, rsp, err := d.DialContext(ctx, tr.url, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = rsp.Body.Close()
	t.Cleanup(func() { _ = conn.Close() })
	s := &rawSession{t: t, conn: conn, ser: ser}
	serial := tr.serials[i]
	s.send(&wamp.Hello{Realm: wamp.URI(tr.realm.Name), Details: wamp.Dict{"authid": serial,
		"authmethods": wamp.List{"wampcra"}, "roles": roles}})
	ch, ok := s.recv().(*wamp.Challenge)
	if !ok {
		t.Fatal("no challenge")
	}
	s.send(&wamp.Authenticate{Signature: crsign.RespondChallenge(serial, ch, nil), Extra: wamp.Dict{}})
	welcome, ok := s.recv().(*wamp.Welcome)
	if !ok {
		t.Fatal("no welcome")
	}
	s.id = welcome.ID
	return s
}

func (s *rawSession) send(m wamp.Message) {
	s.t.Helper()
	b, err := s.ser.Serialize(m)
	if err != nil {
		s.t.Fatal(err)
	}
	typ := websocket.BinaryMessage
	if _, json := s.ser.(*serialize.JSONSerializer); json {
		typ = websocket.TextMessage
	}
	if err := s.conn.WriteMessage(typ, b); err != nil {
		s.t.Fatal(err)
	}
}

func (s *rawSession) recv() wamp.Message {
	s.t.Helper()
	_ = s.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, b, err := s.conn.ReadMessage()
	if err != nil {
		s.t.Fatal(err)
	}
	m, err := s.ser.Deserialize(b)
	if err != nil {
		s.t.Fatal(err)
	}
	return m
}

// subscribe subscribes to topic (match "" for exact) and returns the
// subscription.
func (s *rawSession) subscribe(topic, match string) wamp.ID {
	s.t.Helper()
	opts := wamp.Dict{}
	if match != "" {
		opts[wire.OptMatch] = match
	}
	s.send(&wamp.Subscribe{Request: 1, Options: opts, Topic: wamp.URI(topic)})
	sub, ok := s.recv().(*wamp.Subscribed)
	if !ok {
		s.t.Fatal("not subscribed")
	}
	return sub.Subscription
}

// subscriberRoles announce a subscriber, with publisher identification
// when ident is set.
func subscriberRoles(ident bool) wamp.Dict {
	return wamp.Dict{"subscriber": wamp.Dict{"features": wamp.Dict{"pattern_based_subscription": true,
		"publisher_identification": ident}}, "publisher": wamp.Dict{}}
}

// link returns the router's side of session id.
func (tr *testRouter) link(t testing.TB, id wamp.ID) *wsPeer {
	t.Helper()
	w := tr.rt.linkOf(id)
	if w == nil {
		t.Fatalf("no link for session %d", id)
	}
	return w
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}
