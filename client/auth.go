// This file holds Auth, the authentication methods a client can offer a
// router (WAMPCRA, Ticket, Anonymous), and WithAuth.

package client

import (
	"fmt"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// Auth is one way of authenticating to the router. Build it with WAMPCRA,
// Ticket or Anonymous and pass it to WithAuth; the zero Auth is invalid.
type Auth struct {
	method engine.AuthMethod
	authID string
}

// WAMPCRA authenticates as authID with WAMP challenge-response: the
// router's challenge signed with secret (HMAC-SHA256; salted secrets are
// derived as the challenge says). The IronFlock platform uses it.
func WAMPCRA(authID, secret string) Auth {
	return Auth{method: engine.AuthMethod{Name: engine.AuthWAMPCRA, Secret: secret}, authID: authID}
}

// Ticket authenticates as authID with a static ticket (a password or
// token the router checks), sent when the router asks for it.
func Ticket(authID, ticket string) Auth {
	return Auth{method: engine.AuthMethod{Name: engine.AuthTicket, Secret: ticket}, authID: authID}
}

// Anonymous offers anonymous authentication: the router admits the session
// without a credential if it allows it.
func Anonymous() Auth { return Auth{method: engine.AuthMethod{Name: engine.AuthAnonymous}} }

// WithAuth sets how the client authenticates, for routers other than the
// IronFlock platform: every HELLO offers the given methods in this order of
// preference, the router picks one, and the client answers its challenge.
// Methods with an authid must agree on it, as HELLO carries one; Anonymous
// carries none, so a HELLO offering only Anonymous has no authid. Each
// method may be given once. Without WithAuth (or WithCredentials) the
// client uses WAMP-CRA with the per-app credential or the legacy one (see
// the package documentation). The last WithAuth or WithCredentials wins.
func WithAuth(methods ...Auth) Option {
	return func(s *settings) {
		authID, err := checkAuth(methods)
		if err != nil {
			s.fail("WithAuth: %v", err)
			return
		}
		s.authID = authID
		s.auth = make([]engine.AuthMethod, len(methods))
		for i, m := range methods {
			s.auth[i] = m.method
		}
	}
}

// checkAuth validates the methods of WithAuth and returns their authid.
func checkAuth(methods []Auth) (string, error) {
	if len(methods) == 0 {
		return "", fmt.Errorf("no authentication method given")
	}
	authID := ""
	seen := map[string]bool{}
	for i, m := range methods {
		switch m.method.Name {
		case engine.AuthWAMPCRA, engine.AuthTicket:
			if m.authID == "" || m.method.Secret == "" {
				return "", fmt.Errorf("method %d (%s) needs an authid and a secret", i, m.method.Name)
			}
			if authID != "" && authID != m.authID {
				return "", fmt.Errorf("methods offer two authids, %q and %q; one HELLO carries one", authID, m.authID)
			}
			authID = m.authID
		case engine.AuthAnonymous:
		default:
			return "", fmt.Errorf("method %d is the zero Auth; use WAMPCRA, Ticket or Anonymous", i)
		}
		if seen[m.method.Name] {
			return "", fmt.Errorf("method %s is given twice", m.method.Name)
		}
		seen[m.method.Name] = true
	}
	return authID, nil
}
