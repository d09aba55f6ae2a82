// This file holds the routes of apps on a device: GET and POST
// /devices/{device_key}/apps, PUT and DELETE
// /devices/{device_key}/apps/{app_key}.

package management

import (
	"context"
	"net/http"
	"net/url"
)

// ListDeviceApps returns the apps installed on a device, ordered by app
// key and stage.
func (c *Client) ListDeviceApps(ctx context.Context, deviceKey int) ([]DeviceApp, error) {
	var out []DeviceApp
	_, _, err := c.do(ctx, call{method: http.MethodGet, path: keyPath("/devices/%d/apps", deviceKey), ok: []int{http.StatusOK}, out: &out})
	return out, err
}

// InstallApp installs an app on a device. The app's realm and data
// backend for the stage then exist, and the device's app credential is
// accepted.
func (c *Client) InstallApp(ctx context.Context, deviceKey int, in Install) (*DeviceApp, error) {
	var out DeviceApp
	_, _, err := c.do(ctx, call{method: http.MethodPost, path: keyPath("/devices/%d/apps", deviceKey),
		body: in, ok: []int{http.StatusCreated}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// SetAppState sets the target state (and optionally the release) of an
// app on a device.
func (c *Client) SetAppState(ctx context.Context, deviceKey, appKey int, ch StateChange) (*DeviceApp, error) {
	var q url.Values
	if ch.Stage != "" {
		q = url.Values{"stage": {string(ch.Stage)}}
	}
	var out DeviceApp
	_, _, err := c.do(ctx, call{method: http.MethodPut, path: keyPath("/devices/%d/apps/%d", deviceKey, appKey),
		query: q, body: ch, ok: []int{http.StatusOK}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// UninstallApp removes an app from a device; new sessions of the app on
// the device are refused from then on. An app inherited from a group
// cannot be removed this way: the API answers 409 CodeInherited.
func (c *Client) UninstallApp(ctx context.Context, deviceKey, appKey int) error {
	_, _, err := c.do(ctx, call{method: http.MethodDelete, path: keyPath("/devices/%d/apps/%d", deviceKey, appKey),
		ok: []int{http.StatusNoContent}})
	return err
}
