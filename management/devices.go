// This file holds the device routes: GET /devices, GET
// /devices/{device_key}, POST /swarms/{swarm_key}/devices and DELETE
// /swarms/{swarm_key}/devices[/{device_key}].

package management

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// ListDevices returns the devices of every project the user is a member
// of, ordered by key.
func (c *Client) ListDevices(ctx context.Context) ([]Device, error) {
	var out []Device
	_, _, err := c.do(ctx, call{method: http.MethodGet, path: "/devices", ok: []int{http.StatusOK}, out: &out})
	return out, err
}

// GetDevice returns one device.
func (c *Client) GetDevice(ctx context.Context, deviceKey int) (*Device, error) {
	var out Device
	_, _, err := c.do(ctx, call{method: http.MethodGet, path: keyPath("/devices/%d", deviceKey), ok: []int{http.StatusOK}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// CreateDevices creates devices in project swarmKey, all or none, and
// returns them in order.
func (c *Client) CreateDevices(ctx context.Context, swarmKey int, devices ...NewDevice) ([]Device, error) {
	if devices == nil {
		devices = []NewDevice{}
	}
	var out []Device
	_, _, err := c.do(ctx, call{method: http.MethodPost, path: keyPath("/swarms/%d/devices", swarmKey),
		body: devices, ok: []int{http.StatusCreated}, out: &out})
	return out, err
}

// DeleteDevice deletes a device of project swarmKey.
func (c *Client) DeleteDevice(ctx context.Context, swarmKey, deviceKey int) error {
	_, _, err := c.do(ctx, call{method: http.MethodDelete, path: keyPath("/swarms/%d/devices/%d", swarmKey, deviceKey),
		ok: []int{http.StatusNoContent}})
	return err
}

// DeleteDevices deletes devices of project swarmKey, all or none (the API
// answers 404 and deletes nothing when one is not in the project).
func (c *Client) DeleteDevices(ctx context.Context, swarmKey int, deviceKeys ...int) error {
	ids := make([]string, len(deviceKeys))
	for i, k := range deviceKeys {
		ids[i] = strconv.Itoa(k)
	}
	_, _, err := c.do(ctx, call{method: http.MethodDelete, path: keyPath("/swarms/%d/devices", swarmKey),
		query: url.Values{"ids": {strings.Join(ids, ",")}}, ok: []int{http.StatusNoContent}})
	return err
}
