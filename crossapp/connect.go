// This file holds the opening of handles: Connect, ConnectAll, and the
// attempt they share per provider and stage (discovery, then the first
// connection to the provider's realm).

package crossapp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// Connect returns a handle on the data of the provider app (its name as the
// consumer's data template lists it under consumes, in any case), in the
// consumer's stage or the one given with Stage. It asks the platform for
// the provider's catalog (sys.appaccess.resolve) and joins the provider's
// realm with the consumer's credential; it fails with NO_GRANT,
// UNKNOWN_APP or PROVIDER_NOT_INSTALLED as the platform answers, with
// PROVIDER_NOT_INSTALLED when the provider shares nothing in the stage,
// with NOT_AUTHORIZED when the platform refuses the credential there, and
// with client.ErrNotConnected when the realm cannot be joined within the
// connect timeout (50 s, WithConnectTimeout).
//
// Handles are cached: while a handle is open, Connect returns it for the
// same provider and stage, and concurrent calls share one attempt; ctx
// bounds only this caller's wait. A failed attempt is not kept.
func (k *Consumer) Connect(ctx context.Context, app string, opts ...ConnectOption) (*Provider, error) {
	const op = "crossapp.Connect"
	var s connectSettings
	for _, o := range opts {
		o.applyConnect(&s)
	}
	if strings.TrimSpace(app) == "" {
		return nil, &client.OpError{Op: op, URI: "app", Err: fmt.Errorf("%w: the provider's name is blank", client.ErrInvalidArgument)}
	}
	stage, err := k.stageOf(op, s.stage)
	if err != nil {
		return nil, err
	}
	return k.open(ctx, op, app, stage, s.onError, nil)
}

// ConnectAll opens a handle on every provider of List that shares
// something in the consumer's stage (or the one given with Stage), at
// once, skipping those without a data backend there. A provider that fails
// to open is handed to OnError (on the calling goroutine, in List's order)
// and left out; with ContinueOnError(false) the first failure in List's
// order is returned instead, and the handles that did open stay open and
// cached. Each handle is cached as Connect caches it. ConnectAll needs the
// wildcard grant: without it it fails with NO_GRANT.
func (k *Consumer) ConnectAll(ctx context.Context, opts ...ConnectAllOption) ([]*Provider, error) {
	const op = "crossapp.ConnectAll"
	var s connectAllSettings
	for _, o := range opts {
		o.applyConnectAll(&s)
	}
	stage, err := k.stageOf(op, s.stage)
	if err != nil {
		return nil, err
	}
	infos, err := k.List(ctx)
	if err != nil {
		return nil, opError(op, wire.AppAccessList, "", err)
	}
	var todo []ProviderInfo
	for _, info := range infos {
		if _, ok := info.Stages[stage]; ok {
			todo = append(todo, info)
		}
	}
	type result struct {
		p   *Provider
		err error
	}
	results := make([]result, len(todo))
	var wg sync.WaitGroup
	for i := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := k.open(ctx, op, todo[i].App, stage, s.onError, &todo[i])
			results[i] = result{p, err}
		}()
	}
	wg.Wait()
	handles := make([]*Provider, 0, len(todo))
	for _, r := range results {
		switch {
		case r.err == nil:
			handles = append(handles, r.p)
		case s.stopOnError:
			return nil, r.err
		case s.onError != nil:
			s.onError(r.err)
		}
	}
	return handles, nil
}

// open returns the cached handle of app in stage, or joins (or starts) the
// attempt that opens it. known is the provider's info when the caller
// already has it (ConnectAll); else the attempt resolves it.
func (k *Consumer) open(ctx context.Context, op, app string, stage client.Stage, onError func(error), known *ProviderInfo) (*Provider, error) {
	key := keyOf(app, stage)
	k.mu.Lock()
	if k.stopped {
		k.mu.Unlock()
		return nil, opError(op, app, app, client.ErrStopped)
	}
	a, ok := k.cache[key]
	if !ok {
		a = &attempt{done: make(chan struct{})}
		k.cache[key] = a
		k.wg.Add(1)
		go func() {
			defer k.wg.Done()
			k.run(a, key, app, stage, onError, known)
		}()
	}
	k.mu.Unlock()
	select {
	case <-a.done:
		if a.err != nil {
			return nil, opError(op, app, app, a.err)
		}
		return a.p, nil
	case <-ctx.Done():
		return nil, opError(op, app, app, ctx.Err())
	}
}

// run carries out an attempt: a failed one leaves the cache before its
// waiters wake.
func (k *Consumer) run(a *attempt, key cacheKey, app string, stage client.Stage, onError func(error), known *ProviderInfo) {
	p, err := k.dial(key, app, stage, onError, known)
	var stale *Provider
	k.mu.Lock()
	if err == nil && k.stopped {
		stale, p, err = p, nil, client.ErrStopped
	}
	if err != nil && k.cache[key] == a {
		delete(k.cache, key)
	}
	a.p, a.err = p, err
	k.mu.Unlock()
	close(a.done)
	if stale != nil {
		ctx, cancel := context.WithTimeout(context.Background(), client.DefaultStopBudget)
		defer cancel()
		_ = stale.Close(ctx)
	}
}

// dial resolves the provider when needed and makes the handle's first
// connection, within the connect timeout.
func (k *Consumer) dial(key cacheKey, app string, stage client.Stage, onError func(error), known *ProviderInfo) (*Provider, error) {
	ctx, cancel := context.WithTimeout(k.ctx, k.set.connectTimeout)
	defer cancel()
	swarm := k.c.Identity().SwarmKey
	if swarm <= 0 {
		return nil, fmt.Errorf("%w: SWARM_KEY is not set; it names the provider's realm", client.ErrMissingConfig)
	}
	info := known
	if info == nil {
		resolved, err := k.resolve(ctx, app)
		if err != nil {
			return nil, err
		}
		info = &resolved
	}
	cat, ok := info.Stages[stage]
	if !ok {
		return nil, accessErr(CodeProviderNotInstalled, info.App, "app %q has no data backend sharing tables in stage %s", info.App, stage)
	}
	realm := wire.Realm(swarm, info.AppKey, string(stage))
	p := newProvider(k, key, info.App, info.AppKey, stage, cat, onError)
	pc, err := k.c.ForRealm(realm, client.WithAttemptHandler(p.attempt))
	if err != nil {
		p.cancel()
		return nil, err
	}
	p.pc = pc
	startCtx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	p.abort = abort
	err = pc.Start(startCtx)
	if err == nil {
		return p, nil
	}
	p.cancel()
	stopCtx, cancelStop := context.WithTimeout(context.Background(), client.DefaultStopBudget)
	defer cancelStop()
	_ = pc.Stop(stopCtx)
	var ae *AccessError
	switch cause := context.Cause(startCtx); {
	case errors.As(cause, &ae):
		return nil, ae
	case errors.Is(cause, context.DeadlineExceeded):
		return nil, fmt.Errorf("%w: failed to connect to realm %q within %s: %w", client.ErrNotConnected, realm, k.set.connectTimeout, err)
	case errors.Is(cause, client.ErrStopped):
		return nil, client.ErrStopped
	}
	return nil, err
}
