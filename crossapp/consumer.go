// This file holds Consumer: the consumer app's side of cross-app access,
// its cache of handles, its end with the client, and List.

package crossapp

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// Consumer opens handles on the data of other apps of the project for the
// app of a client. Create it with New; it is safe for concurrent use.
type Consumer struct {
	c   *client.Client
	set settings

	ctx    context.Context // ends when the client stops
	cancel context.CancelCauseFunc

	mu      sync.Mutex
	stopped bool
	cache   map[cacheKey]*attempt
	wg      sync.WaitGroup // attempts and endings under way; Add only while !stopped
}

// cacheKey names a handle: the provider's name in lower case and the stage.
type cacheKey struct {
	app   string
	stage client.Stage
}

// attempt is the opening of a handle, shared by concurrent callers; once
// done, p or err is set.
type attempt struct {
	done chan struct{}
	p    *Provider
	err  error
}

// New returns the consumer side of cross-app access for the app of c.
// Its handles close when c stops (New registers a stop hook). Use one
// Consumer per client: handles are cached per Consumer.
func New(c *client.Client, opts ...Option) *Consumer {
	s := defaultSettings()
	for _, o := range opts {
		o(&s)
	}
	k := &Consumer{c: c, set: s, cache: map[cacheKey]*attempt{}}
	k.ctx, k.cancel = context.WithCancelCause(context.Background())
	c.OnStop(k.stop)
	return k
}

// spawn runs fn on a goroutine the consumer waits for when the client stops;
// it reports false, running nothing, once the client is stopping.
func (k *Consumer) spawn(fn func()) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.stopped {
		return false
	}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		fn()
	}()
	return true
}

// stop closes every handle and waits, within ctx, for the attempts and
// endings under way.
func (k *Consumer) stop(ctx context.Context) {
	k.mu.Lock()
	k.stopped = true
	var open []*Provider
	for key, a := range k.cache {
		select {
		case <-a.done:
			open = append(open, a.p)
		default:
		}
		delete(k.cache, key)
	}
	k.mu.Unlock()
	k.cancel(client.ErrStopped)
	for _, p := range open {
		_ = p.Close(ctx)
	}
	done := make(chan struct{})
	go func() {
		k.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// evict takes p out of the cache, if it is still there.
func (k *Consumer) evict(p *Provider) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if a, ok := k.cache[p.key]; ok && a.p == p {
		delete(k.cache, p.key)
	}
}

// stageOf returns the stage to open: the option's, or the consumer's own.
func (k *Consumer) stageOf(op string, s client.Stage) (client.Stage, error) {
	if s == "" {
		return k.c.Identity().Stage, nil
	}
	if st, ok := parseStage(string(s)); ok {
		return st, nil
	}
	return "", &client.OpError{Op: op, URI: "stage", Err: fmt.Errorf("%w: stage %q is neither %s nor %s", client.ErrInvalidArgument, s, client.Dev, client.Prod)}
}

// List returns every provider of the project the app may read: each app
// other than this one that shares a table or a transform, its name in lower
// case, with its catalog per stage (an entry without the provider's key is
// left out). It makes one call and opens no connection. It needs the
// wildcard grant: without it it fails with NO_GRANT.
func (k *Consumer) List(ctx context.Context) ([]ProviderInfo, error) {
	const op = "crossapp.List"
	res, err := k.c.Call(ctx, wire.AppAccessList)
	if err != nil {
		return nil, opError(op, wire.AppAccessList, "", err)
	}
	var list []any
	if len(res.Args) > 0 && res.Args[0] != nil {
		var ok bool
		if list, ok = res.Args[0].([]any); !ok {
			return nil, opError(op, wire.AppAccessList, "", fmt.Errorf("unexpected answer: want a list of providers, got %T", res.Args[0]))
		}
	}
	out := make([]ProviderInfo, 0, len(list))
	for _, v := range list {
		info, err := parseInfo("", v)
		switch {
		case CodeOf(err) == CodeProviderNotInstalled:
			continue // no key: nothing to open
		case err != nil:
			return nil, opError(op, wire.AppAccessList, "", err)
		}
		out = append(out, info)
	}
	return out, nil
}

// resolve asks the platform about the provider app.
func (k *Consumer) resolve(ctx context.Context, app string) (ProviderInfo, error) {
	res, err := k.c.Call(ctx, wire.AppAccessResolve, map[string]any{"app": app})
	if err != nil {
		return ProviderInfo{}, mapRefusal(app, err)
	}
	var v any
	if len(res.Args) > 0 {
		v = res.Args[0]
	}
	return parseInfo(app, v)
}

// keyOf returns the cache key of app in stage.
func keyOf(app string, stage client.Stage) cacheKey {
	return cacheKey{app: strings.ToLower(app), stage: stage}
}
