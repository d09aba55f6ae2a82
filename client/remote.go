// This file holds RemoteAccessURL and its options.

package client

import (
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
)

// RemoteOption configures RemoteAccessURL.
type RemoteOption func(*remoteSettings)

type remoteSettings struct {
	protocol string
	variable string
}

// Protocol selects the tunnel protocol: "http" (default), "https", "tcp" or
// "udp".
func Protocol(p string) RemoteOption { return func(s *remoteSettings) { s.protocol = p } }

// PortVariable names the environment variable holding a tcp/udp tunnel's
// public port, when the app template chose another name than
// REMOTE_PORT_FOR_<port>.
func PortVariable(name string) RemoteOption { return func(s *remoteSettings) { s.variable = name } }

// RemoteAccessURL returns the public URL of the app's remote-access tunnel
// for port (docs/wire.md §7.11); no traffic is involved. For http the URL has the
// shape https://<device_key>-<app_name>-<port>.<tunnel domain> (https adds a
// "secure-" prefix; instance devices an "i<INSTANCE_KEY>-" prefix and the
// cloud tunnel domain). For tcp and udp it is <proto>://<domain>:<public
// port>, read from REMOTE_PORT_FOR_<port>; only PROD installations get
// one. An error says why there is no URL.
func (c *Client) RemoteAccessURL(port int, opts ...RemoteOption) (string, error) {
	const op = "RemoteAccessURL"
	s := remoteSettings{protocol: "http"}
	for _, o := range opts {
		o(&s)
	}
	what := strconv.Itoa(port)
	if port < 1 || port > 65535 {
		return "", invalidArg(op, what, "port %d is outside 1…65535", port)
	}
	domain := c.env.get(wire.EnvTunnelDomain)
	if domain == "" {
		domain = wire.DefaultTunnelHost
	}
	cloud := c.env.get(wire.EnvCloudTunnel)
	if cloud == "" {
		cloud = wire.DefaultTunnelHost
	}
	instance := strings.TrimSpace(c.env.get(wire.EnvInstanceKey))
	switch proto := strings.ToLower(s.protocol); proto {
	case "http", "https":
		if c.id.deviceKeyRaw == "" {
			return "", missingConfig(op, what, "DEVICE_KEY is not set")
		}
		if c.id.AppName == "" {
			return "", missingConfig(op, what, "APP_NAME is not set")
		}
		label := c.id.deviceKeyRaw + "-" + strings.ToLower(c.id.AppName) + "-" + what
		if proto == "https" {
			label = "secure-" + label
		}
		if len(label) > 63 || strings.Contains(label, ".") {
			return "", invalidArg(op, what, "the tunnel label %q is not a valid host label (at most 63 characters, no dot)", label)
		}
		if instance != "" {
			return "https://i" + instance + "-" + label + "." + cloud, nil
		}
		return "https://" + label + "." + domain, nil
	case "tcp", "udp":
		name := s.variable
		if name == "" {
			name = wire.EnvRemotePortPfx + what
		}
		if instance != "" {
			if p := c.env.live(name + wire.EnvCloudSuffix); p != "" && p != "0" {
				return proto + "://" + cloud + ":" + p, nil
			}
		}
		p := c.env.mirrored(name)
		if p == "" || p == "0" {
			return "", missingConfig(op, what, "no public port is assigned (%s is not set; only PROD installations are tunneled)", name)
		}
		return proto + "://" + domain + ":" + p, nil
	default:
		return "", invalidArg(op, what, "unknown protocol %q (want http, https, tcp or udp)", s.protocol)
	}
}
