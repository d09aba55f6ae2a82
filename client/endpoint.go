// This file holds the resolution and check of the router URL.

package client

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
)

// routerURL resolves the router's WebSocket URL (docs/wire.md §4): explicit
// option, else DEVICE_ENDPOINT_URL with its path replaced by /ws-ua-usr, else
// the router of RESWARM_URL, else the public cloud.
func routerURL(s *settings, env envSource, logger *slog.Logger) (string, error) {
	if s.url != "" {
		u, err := checkRouterURL(s.url)
		if err != nil {
			return "", invalidArg("New", "WithURL", "%v", err)
		}
		return u, nil
	}
	if ep := strings.TrimSpace(env.get(wire.EnvEndpointURL)); ep != "" {
		u, err := url.Parse(ep)
		if err == nil && u.Scheme != "" && u.Host != "" {
			u.Path, u.RawPath, u.RawQuery, u.Fragment = wire.RouterPath, "", "", ""
			if ws, err := checkRouterURL(u.String()); err == nil {
				return ws, nil
			}
		}
		logger.Warn("ironflock: DEVICE_ENDPOINT_URL is not a usable URL; ignored", "value", ep)
	}
	if studio := strings.TrimSpace(env.get(wire.EnvStudioURL)); studio != "" {
		r, ok := wire.StudioRouters[strings.TrimRight(studio, "/")]
		if !ok {
			return "", missingConfig("New", wire.EnvStudioURL, "unknown studio URL %q", studio)
		}
		return r, nil
	}
	return wire.DefaultRouterURL, nil
}

// checkRouterURL validates a router URL and returns its ws/wss form.
func checkRouterURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	switch strings.ToLower(u.Scheme) {
	case "ws", "http":
		u.Scheme = "ws"
	case "wss", "https":
		u.Scheme = "wss"
	default:
		return "", fmt.Errorf("scheme %q is not one of ws, wss, http, https", u.Scheme)
	}
	if u.Host == "" {
		return "", fmt.Errorf("URL %q has no host", raw)
	}
	return strings.TrimRight(u.String(), "/"), nil
}
