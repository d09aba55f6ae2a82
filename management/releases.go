// This file holds the release routes: POST and GET
// /apps/{app_key}/releases, GET and DELETE
// /apps/{app_key}/releases/{release_key}, POST
// /apps/{app_key}/releases/cancel, and Wait, which polls a build until it
// ends.

package management

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ReleaseOption adjusts CreateRelease.
type ReleaseOption func(url.Values)

// NoWait makes CreateRelease return at once with the BUILDING release
// (wait=false).
func NoWait() ReleaseOption { return func(q url.Values) { q.Set("wait", "false") } }

// WaitTimeout bounds how long the API waits for the build (timeout, 1 to
// 1800 seconds, rounded up to whole seconds); CreateRelease then returns
// the release still BUILDING.
func WaitTimeout(d time.Duration) ReleaseOption {
	return func(q url.Values) {
		s := (d + time.Second - 1) / time.Second
		q.Set("timeout", strconv.FormatInt(int64(s), 10))
	}
}

// CreateRelease starts a build of a new version of an app the user owns.
// By default the API answers when the build ends: the release is then
// READY, FAILED (Error holds the template validator's message) or
// CANCELED. With NoWait, or when WaitTimeout passes first, the release is
// still StatusBuilding: poll it with Wait.
func (c *Client) CreateRelease(ctx context.Context, appKey int, r NewRelease, opts ...ReleaseOption) (*Release, error) {
	q := url.Values{}
	for _, o := range opts {
		o(q)
	}
	var out Release
	_, _, err := c.do(ctx, call{method: http.MethodPost, path: keyPath("/apps/%d/releases", appKey), query: q,
		body: r, ok: []int{http.StatusCreated, http.StatusAccepted}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// ListReleases returns the releases of an app, ordered by key, each with
// its installations in project swarmKey. Users other than the owner see
// the READY releases only.
func (c *Client) ListReleases(ctx context.Context, appKey, swarmKey int) ([]Release, error) {
	var out []Release
	_, _, err := c.do(ctx, call{method: http.MethodGet, path: keyPath("/apps/%d/releases", appKey),
		query: swarmQuery(swarmKey), ok: []int{http.StatusOK}, out: &out})
	return out, err
}

// GetRelease returns a release with its installations in project
// swarmKey.
func (c *Client) GetRelease(ctx context.Context, appKey, releaseKey, swarmKey int) (*Release, error) {
	var out Release
	_, _, err := c.do(ctx, call{method: http.MethodGet, path: keyPath("/apps/%d/releases/%d", appKey, releaseKey),
		query: swarmQuery(swarmKey), ok: []int{http.StatusOK}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteRelease deletes a release that is neither building nor installed.
func (c *Client) DeleteRelease(ctx context.Context, appKey, releaseKey int) error {
	_, _, err := c.do(ctx, call{method: http.MethodDelete, path: keyPath("/apps/%d/releases/%d", appKey, releaseKey),
		ok: []int{http.StatusNoContent}})
	return err
}

// CancelRelease cancels the app's build in progress and returns the
// CANCELED release (ErrNoBuildInProgress when there is none).
func (c *Client) CancelRelease(ctx context.Context, appKey int) (*Release, error) {
	var out Release
	_, _, err := c.do(ctx, call{method: http.MethodPost, path: keyPath("/apps/%d/releases/cancel", appKey),
		ok: []int{http.StatusOK}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

func swarmQuery(swarmKey int) url.Values {
	return url.Values{"swarm_key": {strconv.Itoa(swarmKey)}}
}

// DefaultPollInterval is how often Wait reads a release by default.
const DefaultPollInterval = time.Second

// WaitOption adjusts Wait.
type WaitOption func(*waitSettings)

type waitSettings struct{ every time.Duration }

// PollInterval sets how often Wait reads the release (default
// DefaultPollInterval).
func PollInterval(d time.Duration) WaitOption {
	return func(s *waitSettings) {
		if d > 0 {
			s.every = d
		}
	}
}

// Wait reads a release every poll interval until it is no longer
// BUILDING and returns it; it ends early with ctx's error, or with the
// error of a read. Release reads name a project (swarmKey), as the API
// requires.
func (c *Client) Wait(ctx context.Context, appKey, releaseKey, swarmKey int, opts ...WaitOption) (*Release, error) {
	s := waitSettings{every: DefaultPollInterval}
	for _, o := range opts {
		o(&s)
	}
	t := time.NewTicker(s.every)
	defer t.Stop()
	for {
		r, err := c.GetRelease(ctx, appKey, releaseKey, swarmKey)
		if err != nil {
			return nil, err
		}
		if r.Status != StatusBuilding {
			return r, nil
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-t.C:
		}
	}
}
