// This file holds the configuration from the device agent's environment:
// identity, router URL, realm and the WAMP-CRA credential.

package main

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// config is what the program reads from the environment.
type config struct {
	serial, deviceKey, deviceName string
	swarm, app                    int
	stage                         string // DEV or PROD
	url                           string // the router's WebSocket URL
	authID, secret                string
}

// realm is the app's realm: realm-<swarm>-<app>-<stage in lower case>.
func (c *config) realm() string {
	return fmt.Sprintf("realm-%d-%d-%s", c.swarm, c.app, strings.ToLower(c.stage))
}

// meta is the device metadata every publish and append carries in kwargs.
func (c *config) meta() map[string]any {
	m := map[string]any{"DEVICE_SERIAL_NUMBER": c.serial, "DEVICE_KEY": nil, "DEVICE_NAME": nil}
	if c.deviceKey != "" {
		m["DEVICE_KEY"] = c.deviceKey
	}
	if c.deviceName != "" {
		m["DEVICE_NAME"] = c.deviceName
	}
	return m
}

// readConfig reads the environment through getenv. The per-app credential
// is read from the agent's files (<IRONFLOCK_ENV_DIR or /data/env>/<NAME>.txt)
// first, then from the environment; without one, the legacy credential
// (serial, serial) is used.
func readConfig(getenv func(string) string) (*config, error) {
	c := &config{
		serial:     strings.TrimSpace(getenv("DEVICE_SERIAL_NUMBER")),
		deviceKey:  strings.TrimSpace(getenv("DEVICE_KEY")),
		deviceName: getenv("DEVICE_NAME"),
		stage:      "DEV",
	}
	if c.serial == "" {
		return nil, errors.New("DEVICE_SERIAL_NUMBER is not set")
	}
	var err error
	if c.swarm, err = positive(getenv, "SWARM_KEY"); err != nil {
		return nil, err
	}
	if c.app, err = positive(getenv, "APP_KEY"); err != nil {
		return nil, err
	}
	if strings.EqualFold(strings.TrimSpace(getenv("ENV")), "PROD") {
		c.stage = "PROD"
	}
	c.url = "wss://cbw.ironflock.com/ws-ua-usr"
	if raw := getenv("DEVICE_ENDPOINT_URL"); raw != "" {
		if c.url, err = routerURL(raw); err != nil {
			return nil, err
		}
	}
	dir := getenv("IRONFLOCK_ENV_DIR")
	if dir == "" {
		dir = "/data/env"
	}
	c.authID, c.secret = agentValue(dir, "APP_AUTH_ID", getenv), agentValue(dir, "APP_AUTH_SECRET", getenv)
	if c.authID == "" || c.secret == "" {
		c.authID, c.secret = c.serial, c.serial
	}
	return c, nil
}

func positive(getenv func(string) string, name string) (int, error) {
	n, err := strconv.Atoi(strings.TrimSpace(getenv(name)))
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s is not a positive number", name)
	}
	return n, nil
}

// routerURL keeps the scheme and host of the endpoint URL, with the path
// /ws-ua-usr and http(s) turned into ws(s).
func routerURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", fmt.Errorf("DEVICE_ENDPOINT_URL %q is not a URL with a host", raw)
	}
	switch u.Scheme {
	case "http", "ws":
		u.Scheme = "ws"
	case "https", "wss":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("DEVICE_ENDPOINT_URL %q: scheme %q is not ws, wss, http or https", raw, u.Scheme)
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: "/ws-ua-usr"}).String(), nil
}

// agentValue reads dir/<name>.txt, else the environment variable.
func agentValue(dir, name string, getenv func(string) string) string {
	if b, err := os.ReadFile(filepath.Join(dir, name+".txt")); err == nil {
		if v := strings.TrimSpace(string(b)); v != "" {
			return v
		}
	}
	return strings.TrimSpace(getenv(name))
}
