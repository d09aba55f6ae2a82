package client

import (
	"context"
	"errors"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// supervise keeps the client connected until ctx ends (seed: States and
// transitions). Every involuntary end of a session schedules a reconnect:
// at once, then with a backoff of 1 s growing ×1.5 to 2 s (±10 %). A join
// refused with wamp.error.no_such_realm is retried at that cadence for a
// minute, then once every two minutes, and the fast cadence returns as soon
// as an attempt ends any other way.
func (c *Client) supervise(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	fast := newCadence(c.set.reconnectInitial, c.set.reconnectMax, 1.5, 0.1)
	var realmMissingSince time.Time
	everConnected := false
	for {
		s, err := c.connectOnce(ctx)
		if err == nil {
			joined := time.Now()
			realmMissingSince = time.Time{}
			everConnected = true
			select {
			case <-s.l.closed:
				c.withdraw(s)
				c.log.Warn("ironflock: connection lost; reconnecting", "realm", s.realm, "reason", s.l.reason())
			case <-ctx.Done():
				return // Stop says goodbye on the live session
			}
			// A session that lived a while is followed by an immediate
			// attempt; one that ended at once (a router closing sessions
			// right after the join) by the backoff, so nothing spins.
			if time.Since(joined) >= c.set.reconnectMax {
				fast.reset()
				continue
			}
			err = s.l.reason()
		}
		if ctx.Err() != nil {
			return
		}
		state := StateReconnecting
		if !everConnected {
			state = StateConnecting
		}
		delay := fast.next()
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
		c.mu.Lock()
		c.lastErr = err
		c.setStateLocked(state)
		c.mu.Unlock()
		c.log.Info("ironflock: connection attempt failed", "realm", c.id.Realm(), "url", c.url, "error", err, "retry_in", delay.Round(time.Millisecond))
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

func isWampURI(err error, uri string) bool {
	var we *WampError
	return errors.As(err, &we) && we.URI == uri
}

// connectOnce dials, joins with the credential of this attempt, restores
// every subscription and registration and announces the session.
func (c *Client) connectOnce(ctx context.Context) (*session, error) {
	cred := c.resolveCredential()
	realm := c.id.Realm()
	l, err := dialLink(ctx, c.url, c.set.serializer, c.set.handshakeTimeout, c.set.responseTimeout)
	if err != nil {
		return nil, err
	}
	id, err := join(ctx, l, realm, cred, c.set.responseTimeout)
	if err != nil {
		l.close(err)
		if isWampURI(err, wire.ErrAuthenticationFailed) {
			c.log.Warn("ironflock: the router refused the credential", "realm", realm, "authid", cred.authID, "credential", cred.kind)
		}
		return nil, err
	}
	s := newSession(c, l, id, realm)
	go s.readLoop()
	go l.keepalive(c.set.keepaliveIdle, c.set.pongTimeout)
	stop := context.AfterFunc(ctx, func() { l.close(ctx.Err()) })
	defer stop()
	if err := c.restoreAndAnnounce(ctx, s); err != nil {
		l.close(err)
		return nil, err
	}
	return s, nil
}

// withdraw takes a lost session out of service.
func (c *Client) withdraw(s *session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cur.CompareAndSwap(s, nil)
	c.live.CompareAndSwap(s, nil)
	if !c.stopped {
		c.setStateLocked(StateReconnecting)
	}
}
