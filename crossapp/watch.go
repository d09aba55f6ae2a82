// This file holds what a handle does with the outcome of each connection
// attempt to the provider's realm (docs/wire.md §7.12 and §11): a refusal
// before the first session fails the opening at once; a refusal after it
// asks the platform whether the grant still stands — a revoked grant ends
// the handle with NO_GRANT — and ends it with NOT_AUTHORIZED only when the
// refusals persist.

package crossapp

import (
	"context"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
)

// attempt is the handle's attempt handler (client.WithAttemptHandler). It
// runs on the connection's own goroutine, one outcome at a time, in order.
func (p *Provider) attempt(err error) {
	if err == nil {
		p.joined, p.streak = true, 0
		return
	}
	if !isDenial(err) || p.Err() != nil {
		return
	}
	if !p.joined {
		p.abort(&AccessError{Code: CodeNotAuthorized, App: p.app, err: err, Reason: fmt.Sprintf(
			"%s: the platform refused the consumer's credential on the realm of app %q", client.WampURI(err), p.app)})
		return
	}
	if p.streak == 0 {
		p.first = time.Now()
	}
	p.streak++
	if why := p.why(); why != nil {
		p.lose(why)
		return
	}
	if p.streak >= p.k.set.denialRefusals && time.Since(p.first) >= p.k.set.denialAfter {
		p.lose(&AccessError{Code: CodeNotAuthorized, App: p.app, err: err, Reason: fmt.Sprintf(
			"%s: the platform has refused the consumer on the realm of app %q %d times since %s",
			client.WampURI(err), p.app, p.streak, p.first.Format(time.RFC3339))})
	}
}

// why asks the platform, on the consumer's own realm, whether the consumer
// may still read the provider. It returns the refusal (NO_GRANT,
// UNKNOWN_APP, PROVIDER_NOT_INSTALLED) when it may not, nil when it may or
// when the question went unanswered.
func (p *Provider) why() error {
	_, err := p.k.resolve(p.ctx, p.app)
	switch CodeOf(err) {
	case CodeNoGrant, CodeUnknownApp, CodeProviderNotInstalled:
		return err
	}
	return nil
}

// lose ends the handle because access was lost: the handle leaves the
// cache, OnError is told on a goroutine of its own (it may stop the
// client, which waits for nothing of the caller's), and the connection
// stops on a goroutine of the consumer (the connection's own cannot wait
// for its Stop).
func (p *Provider) lose(why error) {
	if !p.end(why) {
		return
	}
	p.cancel()
	p.k.evict(p)
	if p.onError != nil {
		go p.onError(why)
	}
	p.k.spawn(func() {
		ctx, cancel := context.WithTimeout(context.Background(), client.DefaultStopBudget)
		defer cancel()
		_ = p.pc.Stop(ctx)
	})
}
