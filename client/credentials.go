// This file holds the choice of the WAMP-CRA credential for each
// connection attempt.

package client

import "github.com/flockgo/ironflock/internal/wire"

// credential is the WAMP-CRA pair used for one connection attempt.
type credential struct {
	authID, secret string
	kind           string // "explicit", "per-app" or "legacy" (for logs)
}

// resolveCredential picks the credential for an attempt (docs/wire.md §6):
// the explicit pair, else the per-app pair from the env mirror or the
// environment (re-read every time, so a rotation is picked up), else the
// legacy pair (serial, serial).
func (c *Client) resolveCredential() credential {
	if c.set.explicitCred {
		return credential{c.set.authID, c.set.secret, "explicit"}
	}
	id, secret := c.env.mirrored(wire.EnvAppAuthID), c.env.mirrored(wire.EnvAppAuthSecret)
	if id != "" && secret != "" {
		return credential{id, secret, "per-app"}
	}
	return credential{c.id.SerialNumber, c.id.SerialNumber, "legacy"}
}
