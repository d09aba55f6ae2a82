// This file is the facade of the HTTP edge (package internal/edge): the
// options that widen its Host and Origin rules. It serves no URI.

package platformtest

import "net"

// loopback reports whether the platform listens on a loopback address
// only, where the edge's Host rule applies.
func loopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// WithAllowedHosts names hosts, besides the loopback ones, that requests
// may name in their Host header while the platform listens on loopback.
// Such a platform (the default address 127.0.0.1:0 is one) answers only
// requests for localhost, 127.x.y.z or ::1 (any port) and refuses the
// others with 421 Misdirected Request, so that a web page cannot reach it
// through a name of its own that resolves to 127.0.0.1 (DNS rebinding). A
// host is a name or an IP address; a port given with it is ignored, as is
// case. A platform listening on other interfaces takes any Host. A host
// that cannot be read makes New and Start fail. flockd's -allow-host sets
// it.
func WithAllowedHosts(hosts ...string) Option {
	return func(s *settings) { s.hosts = append(s.hosts, hosts...) }
}

// WithAllowedOrigins names web origins (scheme://host[:port], scheme http
// or https) whose pages may open WAMP WebSocket links, besides the
// platform's own (pages served by the platform itself: the same host and
// port as the request). A WebSocket upgrade with any other Origin header
// is refused with 403; clients that send no Origin (devices, programs)
// are never refused. An origin that cannot be read makes New and Start
// fail. flockd's -allow-origin sets it.
func WithAllowedOrigins(origins ...string) Option {
	return func(s *settings) { s.origins = append(s.origins, origins...) }
}
