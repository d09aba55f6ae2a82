// This file holds the group routes under /swarms/{swarm_key}/groups: list
// and get, membership (PUT and DELETE .../devices/{device_key}), and apps
// (POST .../apps, PUT and DELETE .../apps/{app_key}).

package management

import (
	"context"
	"net/http"
)

// ListGroups returns the groups of a project, ordered by key.
func (c *Client) ListGroups(ctx context.Context, swarmKey int) ([]Group, error) {
	var out []Group
	_, _, err := c.do(ctx, call{method: http.MethodGet, path: keyPath("/swarms/%d/groups", swarmKey), ok: []int{http.StatusOK}, out: &out})
	return out, err
}

// GetGroup returns a group of a project.
func (c *Client) GetGroup(ctx context.Context, swarmKey, groupKey int) (*Group, error) {
	var out Group
	_, _, err := c.do(ctx, call{method: http.MethodGet, path: keyPath("/swarms/%d/groups/%d", swarmKey, groupKey),
		ok: []int{http.StatusOK}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// AddDeviceToGroup adds a device of the project to a group (idempotent):
// it inherits the group's apps it does not have yet.
func (c *Client) AddDeviceToGroup(ctx context.Context, swarmKey, groupKey, deviceKey int) (*Group, error) {
	var out Group
	_, _, err := c.do(ctx, call{method: http.MethodPut, path: keyPath("/swarms/%d/groups/%d/devices/%d", swarmKey, groupKey, deviceKey),
		ok: []int{http.StatusOK}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// RemoveDeviceFromGroup removes a device from a group: it loses the apps
// it inherited from the group.
func (c *Client) RemoveDeviceFromGroup(ctx context.Context, swarmKey, groupKey, deviceKey int) error {
	_, _, err := c.do(ctx, call{method: http.MethodDelete, path: keyPath("/swarms/%d/groups/%d/devices/%d", swarmKey, groupKey, deviceKey),
		ok: []int{http.StatusNoContent}})
	return err
}

// InstallGroupApp installs an app on a group and on its members.
func (c *Client) InstallGroupApp(ctx context.Context, swarmKey, groupKey int, in GroupInstall) (*GroupApp, error) {
	var out GroupApp
	_, _, err := c.do(ctx, call{method: http.MethodPost, path: keyPath("/swarms/%d/groups/%d/apps", swarmKey, groupKey),
		body: in, ok: []int{http.StatusCreated}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// UpdateGroupApp changes the release or target state of an app on a group
// and on the members that inherit it.
func (c *Client) UpdateGroupApp(ctx context.Context, swarmKey, groupKey, appKey int, ch GroupAppChange) (*GroupApp, error) {
	var out GroupApp
	_, _, err := c.do(ctx, call{method: http.MethodPut, path: keyPath("/swarms/%d/groups/%d/apps/%d", swarmKey, groupKey, appKey),
		body: ch, ok: []int{http.StatusOK}, out: &out})
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// RemoveGroupApp removes an app from a group; its members lose it.
func (c *Client) RemoveGroupApp(ctx context.Context, swarmKey, groupKey, appKey int) error {
	_, _, err := c.do(ctx, call{method: http.MethodDelete, path: keyPath("/swarms/%d/groups/%d/apps/%d", swarmKey, groupKey, appKey),
		ok: []int{http.StatusNoContent}})
	return err
}
