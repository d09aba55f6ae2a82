// This file holds the app routes: GET and POST /apps, GET and DELETE
// /apps/{app_key}.

package management

import (
	"context"
	"net/http"
)

// ListApps returns the released apps, ordered by key.
func (c *Client) ListApps(ctx context.Context) ([]App, error) {
	var out []App
	_, _, err := c.do(ctx, call{method: http.MethodGet, path: "/apps", ok: []int{http.StatusOK}, out: &out})
	return out, err
}

// GetApp returns an app the user owns or that is released.
func (c *Client) GetApp(ctx context.Context, appKey int) (*App, error) {
	var out App
	_, _, err := c.do(ctx, call{method: http.MethodGet, path: keyPath("/apps/%d", appKey), ok: []int{http.StatusOK}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateApp creates an app owned by the user.
func (c *Client) CreateApp(ctx context.Context, app NewApp) (*App, error) {
	var out App
	_, _, err := c.do(ctx, call{method: http.MethodPost, path: "/apps", body: app, ok: []int{http.StatusCreated}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// DeleteApp deletes an app the user owns, with its releases.
func (c *Client) DeleteApp(ctx context.Context, appKey int) error {
	_, _, err := c.do(ctx, call{method: http.MethodDelete, path: keyPath("/apps/%d", appKey), ok: []int{http.StatusNoContent}})
	return err
}
