// This file holds cadence, the jittered exponential backoff of reconnects
// and restore retries, and the short retries after a refused connection.

package client

import (
	"errors"
	"math/rand/v2"
	"net"
	"syscall"
	"time"

	"github.com/cenkalti/backoff/v4"
	"github.com/gorilla/websocket"
)

// cadence is an exponential backoff whose jitter never exceeds the cap.
type cadence struct {
	b   *backoff.ExponentialBackOff
	max time.Duration
}

func newCadence(initial, max time.Duration, factor, jitter float64) *cadence {
	b := backoff.NewExponentialBackOff()
	b.InitialInterval = initial
	b.MaxInterval = max
	b.Multiplier = factor
	b.RandomizationFactor = jitter
	b.MaxElapsedTime = 0
	b.Reset()
	return &cadence{b: b, max: max}
}

// next returns the next delay: grown, jittered, then capped.
func (c *cadence) next() time.Duration { return min(c.b.NextBackOff(), c.max) }

func (c *cadence) reset() { c.b.Reset() }

// shortened applies a jitter that only shortens d, by up to 10 %.
func shortened(d time.Duration) time.Duration {
	return d - time.Duration(rand.Float64()*0.1*float64(d))
}

// The cadence right after a refused connection: a router restarting is
// usually back within a second, so the first second of refusals is retried
// every few tens of milliseconds instead of waiting out the seed's first
// delay; a router that stays down sees about nine cheap attempts (a
// refused TCP connect each) in that second and then the seed's cadence.
const (
	quickFirst = 20 * time.Millisecond
	quickMax   = 160 * time.Millisecond
)

// maxRetryAfter is the longest wait a router's Retry-After imposes on a
// reconnect: a device never sits out more than a minute on a hint.
const maxRetryAfter = time.Minute

// retryJitter is added to a Retry-After: the header counts whole seconds,
// and devices refused together (a storm) would otherwise all come back at
// the same instant of the second they were told; this spreads them over it.
func retryJitter() time.Duration { return time.Duration(rand.Uint32() % uint32(time.Second)) }

// quickStart spends a budget (the seed's initial reconnect delay) on short
// retries after refused connections: 20 ms doubling to 160 ms.
type quickStart struct {
	budget, spent, next time.Duration
}

func newQuickStart(budget time.Duration) *quickStart {
	return &quickStart{budget: budget, next: quickFirst}
}

// delay returns the next short delay, or false once the budget is spent.
func (q *quickStart) delay() (time.Duration, bool) {
	if q.spent >= q.budget {
		return 0, false
	}
	d := min(q.next, q.budget-q.spent)
	q.spent += d
	q.next = min(q.next*2, quickMax)
	return d, true
}

func (q *quickStart) reset() { q.spent, q.next = 0, quickFirst }

// refusedConnection reports whether an attempt failed before a WebSocket
// was established: the TCP connect was refused or reset, or the HTTP
// upgrade was answered with an error, as while a router restarts.
func refusedConnection(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, websocket.ErrBadHandshake)
}
