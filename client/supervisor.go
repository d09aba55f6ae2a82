// This file holds the connection supervisor: the reconnect state machine
// and one connection attempt (connect, join, restore, announce).

package client

import (
	"context"
	"errors"
	"time"

	"github.com/flockgo/ironflock/client/internal/engine"
	"github.com/flockgo/ironflock/internal/wire"
)

// supervise keeps the client connected until ctx ends (seed: States and
// transitions). Every involuntary end of a session schedules a reconnect:
// at once, then with a backoff of 1 s growing ×1.5 to 2 s (±10 %). Refused
// connections (a router restarting) are retried sooner during the first
// second of an outage: 20 ms doubling to 160 ms, until that second is
// spent, then the backoff. A join refused with wamp.error.no_such_realm is
// retried at the backoff's cadence for a minute, then once every two
// minutes, and the fast cadence returns as soon as an attempt ends any
// other way. An upgrade refused with 503 or 429 and Retry-After (a router
// with too many links awaiting authentication) is retried after the time
// it asks for, at least 20 ms and at most maxRetryAfter, in place of the
// cadence, which does not grow for it. A join refused with
// wamp.error.authentication_failed is retried at the backoff's cadence in
// StateRefusedRetrying until the refusals have lasted the grace
// (WithAuthFailureGrace), then the supervisor gives up (StateRefused).
func (c *Client) supervise(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	fast := newCadence(c.set.reconnectInitial, c.set.reconnectMax, 1.5, 0.1)
	quick := newQuickStart(c.set.reconnectInitial)
	var realmMissingSince, lost time.Time
	var refusals refusalStreak
	everConnected := false
	for {
		s, n, err := c.connectOnce(ctx)
		if err == nil || ctx.Err() == nil {
			c.reportAttempt(err)
		}
		if err == nil {
			joined := time.Now()
			c.stats.sessions.Add(1)
			c.obs.joined(c.realm, s.ID(), everConnected)
			if everConnected {
				c.logReconnected(n, joined.Sub(lost))
			}
			realmMissingSince = time.Time{}
			refusals.reset()
			everConnected = true
			select {
			case <-s.Done():
				lost = time.Now()
				c.withdraw(s)
				c.obs.left(c.realm, s.ID(), s.Err())
				c.log.Warn("ironflock: connection lost; reconnecting", "realm", c.realm, "reason", s.Err())
			case <-ctx.Done():
				return // Stop says goodbye on the live session
			}
			// A session that lived a while is followed by an immediate
			// attempt; one that ended at once (a router closing sessions
			// right after the join) by the backoff, so nothing spins.
			if time.Since(joined) >= c.set.reconnectMax {
				fast.reset()
				quick.reset()
				continue
			}
			err = s.Err()
		}
		if ctx.Err() != nil {
			return
		}
		state := StateReconnecting
		if !everConnected {
			state = StateConnecting
		}
		delay, short := time.Duration(0), false
		if after, asked := engine.RetryAfter(err); asked {
			delay, short = min(max(after, quickFirst), maxRetryAfter), true
		} else if refusedConnection(err) {
			delay, short = quick.delay()
		}
		if !short {
			delay = fast.next()
		}
		if isWampURI(err, wire.ErrNoSuchRealm) {
			if realmMissingSince.IsZero() {
				realmMissingSince = time.Now()
			}
			if time.Since(realmMissingSince) >= c.set.realmSlowAfter {
				state, delay = StateReconnectingSlow, shortened(c.set.realmSlowInterval)
			}
		} else {
			realmMissingSince = time.Time{}
		}
		if isWampURI(err, wire.ErrAuthenticationFailed) {
			if refusals.refused(time.Now(), c.set.authFailureGrace) {
				c.giveUp(err)
				return
			}
			state = StateRefusedRetrying
		} else {
			refusals.reset()
		}
		c.mu.Lock()
		c.lastErr = err
		c.setStateLocked(state)
		c.mu.Unlock()
		c.log.Info("ironflock: connection attempt failed", "realm", c.realm, "url", c.url, "error", err, "retry_in", delay.Round(time.Millisecond))
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
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
