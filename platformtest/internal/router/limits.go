// This file holds the limits that keep the router's memory bounded under
// hostile or slow peers, with their defaults, and what the router does at
// them: a link over the cap of links awaiting authentication is answered
// 503 with Retry-After, and a failed accept (too many open files) is
// logged, each once per episode with a count when it ends.

package router

import (
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"
)

// Limits bound what one link may cost the router.
type Limits struct {
	// MaxMessageBytes bounds one inbound message of a joined session.
	MaxMessageBytes int64
	// PreAuthBytes bounds everything a WebSocket link may send before its
	// session is admitted (HELLO, AUTHENTICATE); a link beyond it is
	// closed.
	PreAuthBytes int64
	// MaxUnauthenticated bounds the WebSocket links waiting to be
	// admitted; more wait in line for a place (AdmissionLine), and beyond
	// it are answered 503 with Retry-After, each told its own slot at the
	// rate links are admitted (pace.go).
	MaxUnauthenticated int
	// AdmissionLine bounds the upgrades that wait for a place under
	// MaxUnauthenticated (admission.go); negative: none wait, an upgrade
	// over the cap is refused at once.
	AdmissionLine int
	// AdmissionWait bounds an upgrade's wait in line; one still waiting
	// then is refused as over the line.
	AdmissionWait time.Duration
	// Handoff is the capacity of the channel through which the router
	// hands a link its messages (nexus drops a message when it is full);
	// the link's writer, or a pump while the writer is blocked, empties it
	// at once, so it only covers the moments neither is scheduled, and a
	// sender waits while fewer than 16 slots are free. At least 32.
	Handoff int
	// QueueBytes bounds the encoded frames queued for one link (each
	// counted with 64 bytes more for its slot); a link whose queue
	// overflows is dropped. A single frame larger than QueueBytes is
	// queued when the queue is empty.
	QueueBytes int
	// WriteTimeout bounds the write of one frame; a link that cannot take
	// a frame in that time is dropped.
	WriteTimeout time.Duration
	// PingTimeout bounds the write of one keepalive ping.
	PingTimeout time.Duration
	// AuthResponseTimeout bounds the wait for AUTHENTICATE after CHALLENGE;
	// a link that has not answered by then is refused (no_response).
	AuthResponseTimeout time.Duration
}

// DefaultLimits returns the limits a Router uses unless told otherwise.
func DefaultLimits() Limits {
	return Limits{
		MaxMessageBytes:     64 << 20,
		PreAuthBytes:        64 << 10,
		MaxUnauthenticated:  256,
		AdmissionLine:       8192,
		AdmissionWait:       5 * time.Second,
		Handoff:             64,
		QueueBytes:          16 << 20,
		WriteTimeout:        10 * time.Second,
		PingTimeout:         5 * time.Second,
		AuthResponseTimeout: 10 * time.Second,
	}
}

// orDefault fills the zero fields of l from DefaultLimits.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.MaxMessageBytes <= 0 {
		l.MaxMessageBytes = d.MaxMessageBytes
	}
	if l.PreAuthBytes <= 0 {
		l.PreAuthBytes = d.PreAuthBytes
	}
	if l.MaxUnauthenticated <= 0 {
		l.MaxUnauthenticated = d.MaxUnauthenticated
	}
	if l.AdmissionLine == 0 {
		l.AdmissionLine = d.AdmissionLine
	}
	if l.AdmissionWait <= 0 {
		l.AdmissionWait = d.AdmissionWait
	}
	if l.Handoff <= 0 {
		l.Handoff = d.Handoff
	}
	l.Handoff = max(l.Handoff, 2*sendHeadroom)
	if l.QueueBytes <= 0 {
		l.QueueBytes = d.QueueBytes
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = d.WriteTimeout
	}
	if l.PingTimeout <= 0 {
		l.PingTimeout = d.PingTimeout
	}
	if l.AuthResponseTimeout <= 0 {
		l.AuthResponseTimeout = d.AuthResponseTimeout
	}
	return l
}

// episode counts the refusals of one episode of a limit: the first is
// logged, and the count when the episode ends.
type episode struct {
	n  atomic.Int64 // refusals in the episode; 0: none running
	ok atomic.Int64 // successes since the last refusal
}

// begin counts one refusal and reports whether it starts an episode.
func (e *episode) begin() bool {
	e.ok.Store(0)
	return e.n.Add(1) == 1
}

// running reports whether an episode runs; one atomic load.
func (e *episode) running() bool { return e.n.Load() > 0 }

// end ends the episode, returning how many refusals it had (0: none ran,
// or another caller ended it).
func (e *episode) end() int64 { return e.n.Swap(0) }

// acceptsToEnd is how many accepts in a row end an episode of failed
// accepts: at the file limit each freed descriptor lets one accept
// through before the next fails, which is the same episode.
const acceptsToEnd = 16

// authBusy answers an upgrade over the cap of links awaiting
// authentication and over the line waiting for a place: 503 with
// Retry-After (the link's slot, pace.go), the first of an episode logged.
func (rt *Router) authBusy(w http.ResponseWriter) {
	rt.met.authBusy.Inc()
	if rt.busy.begin() {
		rt.log.Warn("refusing WebSocket links with 503 and Retry-After: too many await authentication",
			"limit", rt.limits.MaxUnauthenticated)
	}
	w.Header().Set("Retry-After", strconv.Itoa(rt.pace.retryAfter(time.Now(), rt.admitted.Load(), rt.limits.MaxUnauthenticated))) // pace.go
	http.Error(w, "too many connections awaiting authentication; retry after the time Retry-After gives", http.StatusServiceUnavailable)
}

// authUnderCap ends an episode of refusals over the cap once the links
// awaiting authentication are down to half the cap (not at the first
// under it: in a storm the count hovers at the cap), logging its count.
func (rt *Router) authUnderCap() {
	if !rt.busy.running() {
		return
	}
	if held, _ := rt.unauth.counts(); held > rt.limits.MaxUnauthenticated/2 {
		return
	}
	if n := rt.busy.end(); n > 0 {
		rt.log.Info("links awaiting authentication are under the cap again", "refused", n,
			"limit", rt.limits.MaxUnauthenticated)
	}
}

// acceptFailed counts a failed accept and logs the first of an episode
// (too many open files: the file limit is reached); the listener closing
// is not a failure.
func (rt *Router) acceptFailed(err error) {
	if errors.Is(err, net.ErrClosed) {
		return
	}
	rt.met.acceptErrors.Inc()
	if rt.acceptErrs.begin() {
		rt.log.Warn("cannot accept connections; new links wait until it can again (with too many open files: raise the file limit, ulimit -n)",
			"err", err)
	}
}

// acceptResumed ends an episode of failed accepts after acceptsToEnd
// accepts in a row, logging its count.
func (rt *Router) acceptResumed() {
	if !rt.acceptErrs.running() || rt.acceptErrs.ok.Add(1) < acceptsToEnd {
		return
	}
	if n := rt.acceptErrs.end(); n > 0 {
		rt.log.Info("accepting connections again", "failed_accepts", n)
	}
}
