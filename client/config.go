// This file holds Config, the JSON device configuration, NewFromConfig and
// FromServer.

package client

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// Config is the browser-style configuration of a client, as the JavaScript
// library takes it: everything a device environment would otherwise
// provide. FromServer fetches it from an app backend.
type Config struct {
	SerialNumber string
	DeviceKey    string
	AppName      string
	SwarmKey     int
	AppKey       int
	Env          string // DEV or PROD
}

// UnmarshalJSON reads the JavaScript keys (serialNumber, deviceKey, appName,
// swarmKey, appKey, env); keys may be numbers or numeric strings.
func (cfg *Config) UnmarshalJSON(b []byte) error {
	var raw struct {
		SerialNumber string          `json:"serialNumber"`
		DeviceKey    json.RawMessage `json:"deviceKey"`
		AppName      string          `json:"appName"`
		SwarmKey     json.RawMessage `json:"swarmKey"`
		AppKey       json.RawMessage `json:"appKey"`
		Env          string          `json:"env"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	dk, err := looseString(raw.DeviceKey, "deviceKey")
	if err != nil {
		return err
	}
	sk, err := looseInt(raw.SwarmKey, "swarmKey")
	if err != nil {
		return err
	}
	ak, err := looseInt(raw.AppKey, "appKey")
	if err != nil {
		return err
	}
	*cfg = Config{SerialNumber: raw.SerialNumber, DeviceKey: dk, AppName: raw.AppName, SwarmKey: sk, AppKey: ak, Env: raw.Env}
	return nil
}

func looseString(raw json.RawMessage, field string) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return "", fmt.Errorf("%s: want a string or a number, got %s", field, raw)
	}
	return n.String(), nil
}

func looseInt(raw json.RawMessage, field string) (int, error) {
	s, err := looseString(raw, field)
	if err != nil || s == "" {
		return 0, err
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not an integer", field, s)
	}
	return n, nil
}

// options turns the configuration into identity options; the process
// environment is not consulted for identity.
func (cfg Config) options() []Option {
	opts := []Option{
		WithEnv(map[string]string{}),
		WithSerialNumber(cfg.SerialNumber),
		WithAppName(cfg.AppName),
		WithSwarmKey(cfg.SwarmKey),
		WithAppKey(cfg.AppKey),
		WithStage(ParseStage(cfg.Env)),
	}
	if n, err := strconv.Atoi(strings.TrimSpace(cfg.DeviceKey)); err == nil {
		opts = append(opts, WithDeviceKey(n))
	}
	return opts
}

// NewFromConfig creates a client from a browser-style configuration instead
// of the device environment. Options given after it (WithURL,
// WithCredentials, …) apply on top.
func NewFromConfig(cfg Config, opts ...Option) (*Client, error) {
	return New(append(cfg.options(), opts...)...)
}

// FromServer fetches the configuration JSON at configURL (the JavaScript
// library's fromServer) and returns a client made from it. Call Start
// before use.
func FromServer(ctx context.Context, configURL string, opts ...Option) (*Client, error) {
	const op = "FromServer"
	s := defaultSettings()
	for _, o := range opts {
		o(&s)
	}
	hc := s.http
	if hc == nil {
		hc = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, configURL, nil)
	if err != nil {
		return nil, invalidArg(op, configURL, "%v", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := hc.Do(req)
	if err != nil {
		return nil, opErr(op, configURL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, opErr(op, configURL, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, opErr(op, configURL, fmt.Errorf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(body))))
	}
	var cfg Config
	if err := json.Unmarshal(body, &cfg); err != nil {
		return nil, opErr(op, configURL, fmt.Errorf("%w: the configuration is not valid: %v", ErrMissingConfig, err))
	}
	return NewFromConfig(cfg, opts...)
}
