// This file holds the router's metrics (internal/metrics): sessions by
// realm stage and role, links, messages by type and bytes in each
// direction, call latency by procedure, acknowledged appends and refusals
// by URI (templated: no device keys), storage_full answers and links
// dropped for not keeping up. A link remembers its calls and acknowledged
// publications until their answer (a map entry each, bounded), to time
// them and name the URI of a refusal.

package router

import (
	"maps"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/metrics"
)

// maxTypes bounds the WAMP message types counted by type.
const maxTypes = 72

// maxPending bounds the requests a link remembers for its metrics; a
// link beyond it starts afresh (its older answers go untimed).
const maxPending = 4096

// routerMetrics are the router's metrics.
type routerMetrics struct {
	in, out           [maxTypes]atomic.Uint64 // messages by type
	bytesIn, bytesOut atomic.Uint64
	callLatency       *metrics.Vec[*metrics.Histogram] // by procedure template
	appends           *metrics.Vec[*metrics.Counter]   // acknowledged, by URI template
	refusals          *metrics.Vec[*metrics.Counter]   // by message type, URI template and error
	storageFull       *metrics.Counter
	slowDrops         *metrics.Counter
	authBusy          *metrics.Counter // links answered 503 over the pending-authentication cap
	acceptErrors      *metrics.Counter
	sessions          map[sessionKind]int // active sessions; guarded by Router.mu
}

// registerMetrics registers the router's metrics in reg.
func (rt *Router) registerMetrics(reg *metrics.Registry) {
	m := &rt.met
	reg.Func("flockd_sessions", "Joined device sessions by the stage of their realm and their role.",
		metrics.KindGauge, []string{"stage", "role"}, rt.collectSessions)
	reg.Func("flockd_links", "Open WAMP WebSocket links, joined or not.", metrics.KindGauge, nil,
		func(emit func(float64, ...string)) {
			rt.mu.Lock()
			n := len(rt.peers)
			rt.mu.Unlock()
			emit(float64(n))
		})
	reg.Func("flockd_links_unauthenticated", "WebSocket links waiting to be admitted.", metrics.KindGauge, nil,
		func(emit func(float64, ...string)) { held, _ := rt.unauth.counts(); emit(float64(held)) })
	reg.Func("flockd_links_admission_line", "WebSocket upgrades waiting in line for a place among the links being admitted.", metrics.KindGauge, nil,
		func(emit func(float64, ...string)) { _, waiting := rt.unauth.counts(); emit(float64(waiting)) })
	reg.Func("flockd_messages_total", "WAMP messages of device links by direction (in: from the device) and type.",
		metrics.KindCounter, []string{"dir", "type"}, func(emit func(float64, ...string)) {
			for t := range maxTypes {
				if n := m.in[t].Load(); n > 0 {
					emit(float64(n), DirIn, wamp.MessageType(t).String())
				}
				if n := m.out[t].Load(); n > 0 {
					emit(float64(n), DirOut, wamp.MessageType(t).String())
				}
			}
		})
	reg.Func("flockd_message_bytes_total", "Bytes of WAMP messages of device links by direction.",
		metrics.KindCounter, []string{"dir"}, func(emit func(float64, ...string)) {
			emit(float64(m.bytesIn.Load()), DirIn)
			emit(float64(m.bytesOut.Load()), DirOut)
		})
	m.callLatency = reg.HistogramVec("flockd_call_duration_seconds",
		"Time from a device's CALL to its RESULT or ERROR, by procedure (keys replaced by {n}).", nil, "procedure")
	m.appends = reg.CounterVec("flockd_appends_total",
		"Appends to tables acknowledged (append.* and appendBulk.* calls answered with a result), by URI (keys replaced by {n}).", "uri")
	m.refusals = reg.CounterVec("flockd_refusals_total",
		"Requests of devices answered with ERROR, by request type, URI (keys replaced by {n}; empty when not known) and error URI.",
		"type", "uri", "error")
	m.storageFull = reg.Counter("flockd_storage_full_total", "Writes refused with "+wire.ErrStorageFull+".")
	m.slowDrops = reg.Counter("flockd_slow_link_drops_total", "Links dropped because they could not keep up with what they were sent.")
	m.authBusy = reg.Counter("flockd_auth_busy_total",
		"WebSocket upgrades answered 503 with Retry-After because too many links were waiting to be admitted.")
	m.acceptErrors = reg.Counter("flockd_accept_errors_total", "Failed accepts of TCP connections (such as too many open files).")
}

// sessionKind is what the sessions gauge is labelled with.
type sessionKind struct{ stage, role string }

// countSessionLocked counts a session in or out of the active ones: in the
// sessions gauge and in its device's online sessions (online.go). The
// caller holds rt.mu.
func (rt *Router) countSessionLocked(s *session, delta int) {
	if rt.met.sessions == nil {
		rt.met.sessions = map[sessionKind]int{}
	}
	rt.met.sessions[sessionKind{s.realm.Stage, s.role}] += delta
	rt.online.add(s.device.Key, delta)
}

// collectSessions reports the joined sessions by stage and role: the
// kinds seen since the router started, those without sessions as 0.
func (rt *Router) collectSessions(emit func(float64, ...string)) {
	rt.mu.Lock()
	counts := maps.Clone(rt.met.sessions)
	rt.mu.Unlock()
	for k, n := range counts {
		emit(float64(n), k.stage, k.role)
	}
}

// reqKey names a request of a link awaiting its answer.
type reqKey struct {
	typ wamp.MessageType
	id  wamp.ID
}

// pendingReq is what a link remembers of a request until its answer.
type pendingReq struct {
	uri   string // templated
	start time.Time
}

// noteIn counts an inbound message of size bytes and remembers a joined
// session's calls and acknowledged publications.
func (w *wsPeer) noteIn(msg wamp.Message, size int) {
	m := &w.rt.met
	if t := msg.MessageType(); t < maxTypes {
		m.in[t].Add(1)
	}
	m.bytesIn.Add(uint64(size))
	switch x := msg.(type) {
	case *wamp.Call:
		w.remember(reqKey{wamp.CALL, x.Request}, string(x.Procedure))
	case *wamp.Publish:
		if ack, _ := x.Options[wire.OptAcknowledge].(bool); ack {
			w.remember(reqKey{wamp.PUBLISH, x.Request}, string(x.Topic))
		}
	}
}

// remember keeps a request until its answer.
func (w *wsPeer) remember(k reqKey, uri string) {
	p := pendingReq{uri: metrics.Template(uri), start: time.Now()}
	w.mu.Lock()
	if w.pending == nil || len(w.pending) >= maxPending {
		w.pending = map[reqKey]pendingReq{}
	}
	w.pending[k] = p
	w.mu.Unlock()
}

// answered returns and forgets the request an answer is for.
func (w *wsPeer) answered(k reqKey) (pendingReq, bool) {
	w.mu.Lock()
	p, ok := w.pending[k]
	if ok {
		delete(w.pending, k)
	}
	w.mu.Unlock()
	return p, ok
}

// noteOut counts an outbound message encoded in size bytes and times the
// answers of remembered requests.
func (w *wsPeer) noteOut(msg wamp.Message, size int) {
	m := &w.rt.met
	if t := msg.MessageType(); t < maxTypes {
		m.out[t].Add(1)
	}
	m.bytesOut.Add(uint64(size))
	switch x := msg.(type) {
	case *wamp.Result:
		if progress, _ := x.Details[wamp.OptProgress].(bool); progress {
			return
		}
		if p, ok := w.answered(reqKey{wamp.CALL, x.Request}); ok {
			m.callLatency.With(p.uri).ObserveDuration(time.Since(p.start))
			if strings.HasPrefix(p.uri, "append.") || strings.HasPrefix(p.uri, "appendBulk.") {
				m.appends.With(p.uri).Inc()
			}
		}
	case *wamp.Published:
		w.answered(reqKey{wamp.PUBLISH, x.Request})
	case *wamp.Error:
		p, ok := w.answered(reqKey{x.Type, x.Request})
		if ok && x.Type == wamp.CALL {
			m.callLatency.With(p.uri).ObserveDuration(time.Since(p.start))
		}
		m.refusals.With(x.Type.String(), p.uri, metrics.Template(string(x.Error))).Inc()
		if x.Error == wire.ErrStorageFull {
			m.storageFull.Inc()
		}
	}
}
