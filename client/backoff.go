// This file holds cadence, the jittered exponential backoff of reconnects
// and restore retries.

package client

import (
	"math/rand/v2"
	"time"

	"github.com/cenkalti/backoff/v4"
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
