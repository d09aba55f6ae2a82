// This file holds the restore of every tracked subscription and
// registration on a new session before it is announced, and the retry of
// those that failed.

package client

import (
	"context"
	"sync"
	"time"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// restoreItem is a subscription group or a registration to (re)establish
// on a session.
type restoreItem struct {
	group *subGroup
	reg   *Registration
}

func (it restoreItem) name() string {
	if it.group != nil {
		return it.group.key.topic
	}
	return it.reg.proc.URI
}

// restored counts what a new session took over from the client's state.
type restored struct {
	subscriptions, registrations int // established before the announcement
	retrying                     int // failed, retried in the background
}

// restoreAndAnnounce establishes every tracked subscription and
// registration on s, then makes s the current session. Items added while
// restoring are restored too before the announcement; items that fail are
// retried on s in the background (and again at the next reconnect).
func (c *Client) restoreAndAnnounce(ctx context.Context, s *engine.Session) (restored, error) {
	attempted := map[restoreItem]bool{}
	var failed []restoreItem
	for {
		c.mu.Lock()
		var todo []restoreItem
		for _, g := range c.groups {
			if it := (restoreItem{group: g}); !attempted[it] {
				todo = append(todo, it)
			}
		}
		for _, r := range c.regs {
			if it := (restoreItem{reg: r}); !attempted[it] {
				todo = append(todo, it)
			}
		}
		if len(todo) == 0 {
			if !s.Alive() {
				c.mu.Unlock()
				return restored{}, s.Lost()
			}
			if c.stopped {
				c.mu.Unlock()
				return restored{}, ErrStopped
			}
			c.cur.Store(s)
			c.live.Store(s)
			c.lastErr = nil
			c.setStateLocked(StateConnected)
			select {
			case <-c.connected:
			default:
				close(c.connected)
			}
			c.mu.Unlock()
			break
		}
		c.mu.Unlock()
		for _, it := range todo {
			attempted[it] = true
		}
		failed = append(failed, c.restoreItems(ctx, s, todo)...)
		if !s.Alive() {
			return restored{}, s.Lost()
		}
	}
	if len(failed) > 0 {
		go c.retryRestore(s, failed)
	}
	var n restored
	for it := range attempted {
		if it.group != nil {
			n.subscriptions++
		} else {
			n.registrations++
		}
	}
	for _, it := range failed {
		if it.group != nil {
			n.subscriptions--
		} else {
			n.registrations--
		}
	}
	n.retrying = len(failed)
	return n, nil
}

// restoreItems establishes items on s concurrently and returns those that
// failed.
func (c *Client) restoreItems(ctx context.Context, s *engine.Session, items []restoreItem) []restoreItem {
	errs := make([]error, len(items))
	var wg sync.WaitGroup
	for i, it := range items {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if it.group != nil {
				errs[i] = wampError(s.Subscribe(ctx, it.group.topic))
			} else {
				errs[i] = wampError(s.Register(ctx, it.reg.proc))
			}
		}()
	}
	wg.Wait()
	var failed []restoreItem
	for i, err := range errs {
		if err != nil && s.Alive() {
			c.log.Warn("ironflock: could not restore after reconnect; retrying", "uri", items[i].name(), "error", err)
			failed = append(failed, items[i])
		}
	}
	return failed
}

// tracked reports whether the client still wants it.
func (c *Client) tracked(it restoreItem) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if it.group != nil {
		return c.groupLocked(it.group.key) == it.group
	}
	return c.regLocked(it.reg.proc.URI) == it.reg
}

// retryRestore retries failed items on the same session with a backoff of
// 1 s doubling to 30 s (±15 %) until they succeed or the session ends.
func (c *Client) retryRestore(s *engine.Session, items []restoreItem) {
	cad := newCadence(c.set.restoreInitial, c.set.restoreMax, 2, 0.15)
	sctx := s.Context()
	for len(items) > 0 {
		t := time.NewTimer(cad.next())
		select {
		case <-t.C:
		case <-sctx.Done():
			t.Stop()
			return
		}
		var still []restoreItem
		for _, it := range items {
			if c.tracked(it) {
				still = append(still, it)
			}
		}
		items = c.restoreItems(sctx, s, still)
	}
}
