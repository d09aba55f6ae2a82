// This file holds the connection supervisor: the reconnect state machine
// and one connection attempt (connect, join, restore, announce).

package client

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/client/internal/engine"
	"github.com/flockgo/ironflock/internal/wire"
)

// newSupervisor returns the supervisor of a Start, which keeps the client
// connected until it is stopped (seed: States and transitions). Every
// involuntary end of a session schedules a reconnect: at once, then with a
// backoff of 1 s growing ×1.5 to 2 s (±10 %). Refused connections (a
// router restarting) are retried sooner during the first second of an
// outage: 20 ms doubling to 160 ms, until that second is spent, then the
// backoff. A join refused with wamp.error.no_such_realm is retried at the
// backoff's cadence for a minute, then once every two minutes, and the
// fast cadence returns as soon as an attempt ends any other way. An
// upgrade refused with 503 or 429 and Retry-After (a router with too many
// links awaiting authentication) is retried after the time it asks for
// plus up to a second (retryJitter), at least 20 ms and at most
// maxRetryAfter, in place of the cadence, which does not grow for it. A
// join refused with wamp.error.authentication_failed is retried at the
// backoff's cadence in StateRefusedRetrying until the refusals have lasted
// the grace (WithAuthFailureGrace), then the supervisor gives up
// (StateRefused).
//
// While a session is live no goroutine of the supervisor waits for its
// end, and it holds no context: the end of the session (Session.OnEnd)
// resumes it, or its stop ends it, so that an idle client holds its
// session's goroutine only. run(nil), on a goroutine of its own, starts
// it.
func (c *Client) newSupervisor(done chan<- struct{}) *supervisor {
	return &supervisor{c: c, done: done,
		fast:  newCadence(c.set.reconnectInitial, c.set.reconnectMax, 1.5, 0.1),
		quick: newQuickStart(c.set.reconnectInitial)}
}

// supervisor is what the supervision keeps between sessions.
type supervisor struct {
	c    *Client
	done chan<- struct{} // closed when the supervisor ends for good
	// parked says whether the supervisor waits for a live session's end
	// (parkedLive), was resumed by it or runs (parkedNo), or was ended by
	// stop meanwhile (parkedStopped).
	parked atomic.Int32
	// Under mu: stop was called; cancelRun ends the context of the run in
	// progress (begin), nil while none runs.
	mu                      sync.Mutex
	stopped                 bool
	cancelRun               context.CancelFunc
	fast                    *cadence
	quick                   *quickStart
	realmMissingSince, lost time.Time
	joined                  time.Time // when the live (or last) session joined
	refusals                refusalStreak
	everConnected           bool
}

// The values of supervisor.parked.
const (
	parkedNo = iota
	parkedLive
	parkedStopped
)

// stop ends the supervisor: a supervisor parked on a live session ends at
// once (done is closed), a running one at its next look at its context,
// which ends now.
func (sv *supervisor) stop() {
	sv.mu.Lock()
	sv.stopped = true
	cancel := sv.cancelRun
	sv.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if sv.parked.CompareAndSwap(parkedLive, parkedStopped) {
		close(sv.done)
	}
}

// isStopped reports whether stop was called.
func (sv *supervisor) isStopped() bool {
	sv.mu.Lock()
	defer sv.mu.Unlock()
	return sv.stopped
}

// begin returns the context of a run, which stop ends (ended already
// after stop).
func (sv *supervisor) begin() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	sv.mu.Lock()
	if sv.stopped {
		cancel()
	}
	sv.cancelRun = cancel
	sv.mu.Unlock()
	return ctx
}

// end releases the context of the run that ends.
func (sv *supervisor) end() {
	sv.mu.Lock()
	cancel := sv.cancelRun
	sv.cancelRun = nil
	sv.mu.Unlock()
	cancel()
}

// run makes connection attempts until one joins, then arranges to be
// resumed when that session ends (ended, on that run) and returns; or
// until stop or the credential's refusal is final, when it closes done.
func (sv *supervisor) run(ended *engine.Session) {
	s, n, ok := sv.attempt(sv.begin(), ended)
	sv.end()
	if !ok {
		close(sv.done)
		return
	}
	sv.joinedSession(s, n)
}

// attempt is run's loop, with ctx the run's context: it returns the
// session that joined, or false when the supervisor ends.
func (sv *supervisor) attempt(ctx context.Context, ended *engine.Session) (*engine.Session, restored, bool) {
	c := sv.c
	var err error
	attempt := true
	if ended != nil {
		sv.lost = time.Now()
		c.withdraw(ended)
		c.obs.left(c.realm, ended.ID(), ended.Err())
		c.log.Warn("ironflock: connection lost; reconnecting", "realm", c.realm, "reason", ended.Err())
		// A session that lived a while is followed by an immediate
		// attempt; one that ended at once (a router closing sessions
		// right after the join) by the backoff, so nothing spins.
		if time.Since(sv.joined) >= c.set.reconnectMax {
			sv.fast.reset()
			sv.quick.reset()
		} else {
			err, attempt = ended.Err(), false
		}
	}
	for {
		if attempt {
			s, n, aerr := c.connectOnce(ctx)
			if aerr == nil || ctx.Err() == nil {
				c.reportAttempt(aerr)
			}
			if aerr == nil {
				return s, n, true
			}
			err = aerr
		}
		attempt = true
		if ctx.Err() != nil {
			return nil, restored{}, false
		}
		delay, final := sv.backoff(err)
		if final {
			return nil, restored{}, false
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, restored{}, false
		}
	}
}

// joinedSession records a session that joined and resumes the supervisor
// when it ends; when the supervisor is stopped first it ends (Stop says
// goodbye on the live session).
func (sv *supervisor) joinedSession(s *engine.Session, n restored) {
	c := sv.c
	sv.joined = time.Now()
	c.stats.sessions.Add(1)
	c.obs.joined(c.realm, s.ID(), sv.everConnected)
	if sv.everConnected {
		c.logReconnected(n, sv.joined.Sub(sv.lost))
	}
	sv.realmMissingSince = time.Time{}
	sv.refusals.reset()
	sv.everConnected = true
	// The first of the two ends wins: the session's resumes the
	// supervisor, stop (called already, or later) ends it and leaves
	// the session to Stop.
	sv.parked.Store(parkedLive)
	s.OnEnd(func() {
		if sv.parked.CompareAndSwap(parkedLive, parkedNo) {
			sv.run(s) // on the goroutine OnEnd started
		}
	})
	if sv.isStopped() && sv.parked.CompareAndSwap(parkedLive, parkedStopped) {
		close(sv.done)
	}
}

// backoff returns how long to wait before the next attempt after err, and
// sets the client's state; final when the credential's refusal is final
// (the client gave up).
func (sv *supervisor) backoff(err error) (delay time.Duration, final bool) {
	c := sv.c
	state := StateReconnecting
	if !sv.everConnected {
		state = StateConnecting
	}
	short := false
	if after, asked := engine.RetryAfter(err); asked {
		delay, short = min(max(after+retryJitter(), quickFirst), maxRetryAfter), true
	} else if refusedConnection(err) {
		delay, short = sv.quick.delay()
	}
	if !short {
		delay = sv.fast.next()
	}
	if isWampURI(err, wire.ErrNoSuchRealm) {
		if sv.realmMissingSince.IsZero() {
			sv.realmMissingSince = time.Now()
		}
		if time.Since(sv.realmMissingSince) >= c.set.realmSlowAfter {
			state, delay = StateReconnectingSlow, shortened(c.set.realmSlowInterval)
		}
	} else {
		sv.realmMissingSince = time.Time{}
	}
	if isWampURI(err, wire.ErrAuthenticationFailed) {
		if sv.refusals.refused(time.Now(), c.set.authFailureGrace) {
			c.giveUp(err)
			return 0, true
		}
		state = StateRefusedRetrying
	} else {
		sv.refusals.reset()
	}
	c.mu.Lock()
	c.lastErr = err
	c.setStateLocked(state)
	c.mu.Unlock()
	c.log.Info("ironflock: connection attempt failed", "realm", c.realm, "url", c.url, "error", err, "retry_in", delay.Round(time.Millisecond))
	return delay, false
}

// isWampURI reports whether err carries a *WampError with uri.
func isWampURI(err error, uri string) bool {
	var we *WampError
	return errors.As(err, &we) && we.URI == uri
}

// logReconnected says, at info level, that the client is connected again
// after an outage of downtime (from the loss it noticed to the session's
// announcement) and what it restored.
func (c *Client) logReconnected(n restored, downtime time.Duration) {
	attrs := []any{"realm", c.realm, "downtime", downtime.Round(time.Millisecond),
		"subscriptions", n.subscriptions, "registrations", n.registrations}
	if n.retrying > 0 {
		attrs = append(attrs, "retrying", n.retrying)
	}
	c.log.Info("ironflock: connected again", attrs...)
}

// connectOnce connects and joins with the credential of this attempt,
// restores every subscription and registration and announces the session.
func (c *Client) connectOnce(ctx context.Context) (*engine.Session, restored, error) {
	cred := c.resolveCredential()
	realm := c.realm
	c.obs.dialing(c.url)
	dialStart := time.Now()
	s, err := engine.Connect(ctx, engine.Config{
		URL:              c.url,
		Realm:            realm,
		AuthID:           cred.authID,
		Auth:             cred.methods,
		JSON:             c.set.serializer == JSON,
		HandshakeTimeout: c.set.handshakeTimeout,
		ResponseTimeout:  c.set.responseTimeout,
		KeepaliveIdle:    c.set.keepaliveIdle,
		PongTimeout:      c.set.pongTimeout,
		Stop:             c.stopCh,
		Logger:           c.log,
		Counters:         &c.stats.wire,
		OnPong:           c.obs.onPong(),
		Dial:             c.set.dial,
	})
	c.obs.dialed(c.url, time.Since(dialStart), wampError(err))
	if err != nil {
		err = wampError(err)
		if isWampURI(err, wire.ErrAuthenticationFailed) {
			c.log.Warn("ironflock: the router refused the credential", "realm", realm, "authid", cred.authID, "credential", cred.kind)
		}
		return nil, restored{}, err
	}
	stop := context.AfterFunc(ctx, func() { s.Close(ctx.Err()) })
	defer stop()
	n, err := c.restoreAndAnnounce(ctx, s)
	if err != nil {
		s.Close(err)
		return nil, restored{}, err
	}
	return s, n, nil
}

// withdraw takes a lost session out of service.
func (c *Client) withdraw(s *engine.Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur.CompareAndSwap(s, nil)
	c.live.CompareAndSwap(s, nil)
	if !c.stopped {
		c.setStateLocked(StateReconnecting)
	}
}
