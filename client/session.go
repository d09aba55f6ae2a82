// This file holds Session and SessionInfo: the live WAMP session as plain
// values, for advanced use (the seed's connection property).

package client

// SessionInfo describes a joined WAMP session: plain values, copied from
// what the router said in its WELCOME.
type SessionInfo struct {
	// ID is the session id the router assigned.
	ID uint64
	// Realm is the realm joined.
	Realm string
	// AuthID, AuthRole and AuthMethod are how the router admitted the
	// session; the platform rewrites every authid to the device serial.
	AuthID, AuthRole, AuthMethod string
	// Details is a copy of the WELCOME details (roles, authextra, …).
	Details map[string]any
}

// Session returns the session the client currently uses. While none is
// joined and restored (before Start, while reconnecting, after Stop) it
// returns the zero SessionInfo and false. Each call returns a fresh copy.
func (c *Client) Session() (SessionInfo, bool) {
	s := c.cur.Load()
	if s == nil || !s.Alive() {
		return SessionInfo{}, false
	}
	info := SessionInfo{ID: s.ID(), Realm: s.Realm(), Details: s.Details()}
	if info.Details == nil {
		info.Details = map[string]any{}
	}
	info.AuthID, _ = info.Details["authid"].(string)
	info.AuthRole, _ = info.Details["authrole"].(string)
	info.AuthMethod, _ = info.Details["authmethod"].(string)
	return info, true
}
