// This file holds the choice of the credential for each connection
// attempt.

package client

import (
	"github.com/flockgo/ironflock/client/internal/engine"
	"github.com/flockgo/ironflock/internal/wire"
)

// credential is the authid and the authentication methods of one
// connection attempt.
type credential struct {
	authID  string
	methods []engine.AuthMethod
	kind    string // "explicit", "per-app" or "legacy" (for logs)
}

// resolveCredential picks the credential for an attempt (docs/wire.md §6):
// the methods of WithAuth or WithCredentials, else the per-app WAMP-CRA
// pair from the env mirror or the environment (re-read every time, so a
// rotation is picked up), else the legacy pair (serial, serial).
func (c *Client) resolveCredential() credential {
	if len(c.set.auth) > 0 {
		return credential{c.set.authID, c.set.auth, "explicit"}
	}
	id, secret := c.env.mirrored(wire.EnvAppAuthID), c.env.mirrored(wire.EnvAppAuthSecret)
	if id != "" && secret != "" {
		return craCredential(id, secret, "per-app")
	}
	return craCredential(c.id.SerialNumber, c.id.SerialNumber, "legacy")
}

func craCredential(authID, secret, kind string) credential {
	return credential{authID, []engine.AuthMethod{{Name: engine.AuthWAMPCRA, Secret: secret}}, kind}
}
