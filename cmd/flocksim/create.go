// This file holds fleet.create: the shard's devices made through the REST
// API of a running flockd (found again by name when they exist), the app
// installed on each, and their device environment, with the per-app
// credential from the console (GET /env/{device}) when it answers, else
// the legacy credential (serial, serial), which flockd admits unless
// -strict-auth.

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
)

// createBatch is the most devices one POST creates (the API's bound).
const createBatch = 1000

// restDevice is the part of a REST device flocksim reads.
type restDevice struct {
	DeviceKey int    `json:"device_key"`
	SwarmKey  int    `json:"swarm_key"`
	Serial    string `json:"serial_number"`
	Name      string `json:"name"`
}

// restApp is the part of an installed app flocksim reads.
type restApp struct {
	AppKey int    `json:"app_key"`
	Stage  string `json:"stage"`
}

// createFleet makes the shard's devices and returns them with their
// environment.
func createFleet(ctx context.Context, f fleetSpec, sh shard) ([]deviceInfo, error) {
	c := f.Create
	base := strings.TrimRight(c.URL, "/")
	api := base + "/v1/platform"
	var existing []restDevice
	if err := restDo(ctx, c.Token, http.MethodGet, api+"/devices", nil, &existing); err != nil {
		return nil, err
	}
	byName := map[string]restDevice{}
	for _, d := range existing {
		if d.SwarmKey == c.SwarmKey {
			byName[d.Name] = d
		}
	}
	var names, missing []string
	for i := range f.Devices {
		if !sh.owns(i) {
			continue
		}
		name := fmt.Sprintf("%s%05d", c.Prefix, i+1)
		names = append(names, name)
		if _, ok := byName[name]; !ok {
			missing = append(missing, name)
		}
	}
	for len(missing) > 0 {
		n := min(len(missing), createBatch)
		body := make([]map[string]string, n)
		for i, name := range missing[:n] {
			body[i] = map[string]string{"name": name}
		}
		var made []restDevice
		if err := restDo(ctx, c.Token, http.MethodPost, fmt.Sprintf("%s/swarms/%d/devices", api, c.SwarmKey), body, &made); err != nil {
			return nil, err
		}
		for _, d := range made {
			byName[d.Name] = d
		}
		missing = missing[n:]
	}
	out := make([]deviceInfo, 0, len(names))
	for _, name := range names {
		d := byName[name]
		var apps []restApp
		if err := restDo(ctx, c.Token, http.MethodGet, fmt.Sprintf("%s/devices/%d/apps", api, d.DeviceKey), nil, &apps); err != nil {
			return nil, err
		}
		installed := false
		for _, a := range apps {
			installed = installed || (a.AppKey == c.AppKey && strings.EqualFold(a.Stage, f.Stage))
		}
		if !installed {
			body := map[string]any{"app_key": c.AppKey, "stage": f.Stage}
			if err := restDo(ctx, c.Token, http.MethodPost, fmt.Sprintf("%s/devices/%d/apps", api, d.DeviceKey), body, nil); err != nil {
				return nil, err
			}
		}
		env := consoleEnv(ctx, base, c.ConsoleToken, d.DeviceKey, c.AppKey, f.Stage)
		if env == nil {
			env = map[string]string{
				wire.EnvSerialNumber: d.Serial, wire.EnvDeviceKey: strconv.Itoa(d.DeviceKey), wire.EnvDeviceName: d.Name,
				wire.EnvSwarmKey: strconv.Itoa(c.SwarmKey), wire.EnvAppKey: strconv.Itoa(c.AppKey), wire.EnvAppName: f.App,
				wire.EnvStage: f.Stage, wire.EnvEndpointURL: base,
			}
		}
		out = append(out, deviceInfo{Name: d.Name, Key: d.DeviceKey, Env: env})
	}
	return out, nil
}

// consoleEnv asks flockd's console for the installation's environment
// (with its per-app credential); nil when the console does not give it.
func consoleEnv(ctx context.Context, base, token string, device, app int, stage string) map[string]string {
	q := url.Values{"app": {strconv.Itoa(app)}, "stage": {stage}, "format": {"json"}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("%s/env/%d?%s", base, device, q.Encode()), nil)
	if err != nil {
		return nil
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var env map[string]string
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&env) != nil || env[wire.EnvAppAuthID] == "" {
		return nil
	}
	return env
}

// restDo makes one REST request with the bearer token, sending body as
// JSON when not nil and decoding the answer into out when not nil; an
// answer other than 2xx is an error naming the request and flockd's
// reason.
func restDo(ctx context.Context, token, method, u string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, u, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %s: %s", method, u, resp.Status, strings.TrimSpace(string(b)))
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: %w", method, u, err)
		}
	}
	return nil
}
