// This file holds a link's keepalive: a ping every keepalive interval
// from a timer, on its own (a blocked write cannot stop it), closing a
// link that missed two pongs or whose ping cannot be written. Between
// pings a link holds no goroutine for it.

package router

import (
	"time"

	"github.com/gorilla/websocket"
)

// startPinger arms the first ping; the router's wait group counts the
// keepalive until stopPinger or a failed ping ends it.
func (w *wsPeer) startPinger() {
	ka := w.rt.cfg.Keepalive
	if ka <= 0 {
		return
	}
	w.rt.wg.Add(1)
	w.pingMu.Lock()
	w.pingT = time.AfterFunc(ka, w.ping)
	w.pingMu.Unlock()
}

// ping pings the client and arms the next ping, unless the link is closed
// or closing.
func (w *wsPeer) ping() {
	ok := w.pingOnce()
	w.pingMu.Lock()
	defer w.pingMu.Unlock()
	if !ok || w.pingStopped {
		w.pingEnd()
		return
	}
	w.pingT.Reset(w.rt.cfg.Keepalive)
}

// pingOnce sends one ping; false when the link is closed for it.
func (w *wsPeer) pingOnce() bool {
	select {
	case <-w.done:
		return false
	default:
	}
	if w.pendingPings.Load() >= 2 {
		w.rt.log.Info("closing link that missed two pongs", "peer", w.tc.RemoteAddr().String(), "session", w.sessionID())
		_ = w.tc.Close()
		return false
	}
	w.pendingPings.Add(1)
	err := w.conn.WriteControl(websocket.PingMessage, []byte("keepalive"), time.Now().Add(w.rt.limits.PingTimeout))
	if err != nil {
		if w.flushBy.Load() == 0 {
			w.drop("the keepalive ping could not be written", "timeout", w.rt.limits.PingTimeout, "err", err)
		}
		_ = w.tc.Close()
		return false
	}
	return true
}

// stopPinger ends the keepalive of a closing link.
func (w *wsPeer) stopPinger() {
	w.pingMu.Lock()
	defer w.pingMu.Unlock()
	w.pingStopped = true
	if w.pingT != nil && w.pingT.Stop() {
		w.pingEnd() // stopped before it fired; a running ping ends itself
	}
}

// pingEnd gives the keepalive's count in the router's wait group back,
// once.
func (w *wsPeer) pingEnd() { w.pingDone.Do(w.rt.wg.Done) }
