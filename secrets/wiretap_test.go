// This file holds a WebSocket proxy between a client and the fake
// platform, on 127.0.0.1, that records every WAMP message in both
// directions and may rewrite those coming from the platform: the tests see
// the traffic exactly as the wire carries it, and make the platform answer
// what the fake never would.

package secrets_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/platformtest"
)

// frame is one WAMP message on the wire.
type frame struct {
	toPlatform bool
	raw        []byte
	msg        wamp.Message
}

// tap is a recording proxy in front of a platform.
type tap struct {
	srv    *httptest.Server
	target string

	mu      sync.Mutex
	frames  []frame
	rewrite func(m wamp.Message) wamp.Message // applied to messages from the platform
	wg      sync.WaitGroup
}

// newTap starts a proxy to p; it stops at the end of the test.
func newTap(t *testing.T, p *platformtest.Platform) *tap {
	t.Helper()
	tp := &tap{target: p.URL()}
	tp.srv = httptest.NewServer(http.HandlerFunc(tp.serve))
	t.Cleanup(func() {
		tp.srv.CloseClientConnections()
		tp.srv.Close()
		tp.wg.Wait()
	})
	return tp
}

// url is the router URL of the proxy, for client.WithURL.
func (tp *tap) url() string { return "ws" + strings.TrimPrefix(tp.srv.URL, "http") + "/ws-ua-usr" }

// setRewrite installs fn for the messages from the platform (nil: none).
func (tp *tap) setRewrite(fn func(wamp.Message) wamp.Message) {
	tp.mu.Lock()
	tp.rewrite = fn
	tp.mu.Unlock()
}

// recorded returns the frames so far, oldest first.
func (tp *tap) recorded() []frame {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return append([]frame(nil), tp.frames...)
}

var upgrader = websocket.Upgrader{Subprotocols: []string{"wamp.2.msgpack", "wamp.2.json"}}

func (tp *tap) serve(w http.ResponseWriter, r *http.Request) {
	down, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	dialer := websocket.Dialer{Subprotocols: []string{down.Subprotocol()}}
	up, _, err := dialer.Dial(tp.target, nil)
	if err != nil {
		_ = down.Close()
		return
	}
	var ser serialize.Serializer = &serialize.MessagePackSerializer{}
	if down.Subprotocol() == "wamp.2.json" {
		ser = &serialize.JSONSerializer{}
	}
	tp.wg.Add(2)
	go tp.relay(down, up, ser, true)
	go tp.relay(up, down, ser, false)
}

// relay copies messages from src to dst, recording (and rewriting) each.
func (tp *tap) relay(src, dst *websocket.Conn, ser serialize.Serializer, toPlatform bool) {
	defer tp.wg.Done()
	defer func() { _ = src.Close(); _ = dst.Close() }()
	for {
		typ, raw, err := src.ReadMessage()
		if err != nil {
			return
		}
		msg, err := ser.Deserialize(raw)
		if err == nil {
			tp.mu.Lock()
			rewrite := tp.rewrite
			tp.mu.Unlock()
			if rewrite != nil && !toPlatform {
				if m := rewrite(msg); m != msg {
					if b, err := ser.Serialize(m); err == nil {
						msg, raw = m, b
					}
				}
			}
		}
		tp.mu.Lock()
		tp.frames = append(tp.frames, frame{toPlatform: toPlatform, raw: bytes.Clone(raw), msg: msg})
		tp.mu.Unlock()
		if err := dst.WriteMessage(typ, raw); err != nil {
			return
		}
	}
}

// procedures maps the request IDs of the recorded CALLs to their
// procedures.
func procedures(frames []frame) map[wamp.ID]string {
	calls := map[wamp.ID]string{}
	for _, f := range frames {
		if c, ok := f.msg.(*wamp.Call); ok && f.toPlatform {
			calls[c.Request] = string(c.Procedure)
		}
	}
	return calls
}
