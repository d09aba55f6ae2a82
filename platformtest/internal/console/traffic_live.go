// This file serves the live traffic to the console's own page over a
// WebSocket:
//
//	GET /traffic/live  WebSocket: one JSON text frame per tapped message
//	                   ({"event": TrafficEvent}) and {"dropped": n} when
//	                   this viewer fell behind; the filter of
//	                   /traffic/stream (?realm=, ?uri=, ?device=)
//
// The page follows this rather than the server-sent events of
// /traffic/stream (kept for curl and other clients) because a browser
// counts an open event stream as a fetch still loading: a headless
// Chromium run with --virtual-time-budget, which waits for the network to
// go idle, never finished /traffic. A WebSocket is no pending fetch. Only
// pages of the console's own origin may open it (the upgrader's origin
// check), with the console's token rules (ServeHTTP).

package console

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/gorilla/websocket"
)

// liveFrame is one frame of /traffic/live.
type liveFrame struct {
	Event   *TrafficEvent `json:"event,omitempty"`
	Dropped int64         `json:"dropped,omitempty"`
}

// liveWriteTimeout bounds one frame's write to a viewer that stopped
// reading.
const liveWriteTimeout = 10 * time.Second

func (c *Console) trafficLive(w http.ResponseWriter, r *http.Request) {
	// The tap starts before the handshake is answered, so a viewer that
	// says it is watching sees every later message.
	tap := c.cfg.Router.Watch(StreamBuffer)
	defer tap.Close()
	up := websocket.Upgrader{} // refuses an Origin other than the request's host
	conn, err := up.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade answered the request with the reason
	}
	f := parseFilter(r)
	gone := make(chan struct{}) // the viewer closed the page or the link
	go func() {
		defer close(gone)
		for {
			if _, _, err := conn.NextReader(); err != nil {
				return
			}
		}
	}()
	defer func() { _ = conn.Close(); <-gone }()
	keep := time.NewTicker(streamKeepalive)
	defer keep.Stop()
	send := func(fr liveFrame) bool {
		b, err := json.Marshal(fr)
		if err != nil {
			return true
		}
		_ = conn.SetWriteDeadline(time.Now().Add(liveWriteTimeout))
		return conn.WriteMessage(websocket.TextMessage, b) == nil
	}
	var dropped int64
	for {
		select {
		case <-gone:
			return
		case <-keep.C:
			if conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(liveWriteTimeout)) != nil {
				return
			}
		case m, ok := <-tap.C():
			if !ok {
				return
			}
			if d := tap.Dropped(); d != dropped {
				dropped = d
				if !send(liveFrame{Dropped: d}) {
					return
				}
			}
			if !f.match(m.Realm, m.URI, m.DeviceKey) {
				continue
			}
			ev := TrafficEvent{Seq: m.Seq, Time: m.Time.UTC(), Dir: m.Dir, Kind: m.Kind, Realm: m.Realm,
				Session: m.Session, AuthID: m.AuthID, DeviceKey: m.DeviceKey, URI: m.URI, Request: m.Request,
				Error: m.Error, Args: readableList(m.Args), Kwargs: readableDict(m.Kwargs)}
			if !send(liveFrame{Event: &ev}) {
				return
			}
		}
	}
}
