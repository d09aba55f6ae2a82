// Package edge guards the platform's HTTP server against web pages in the
// browser of the person running it. Every request passes through a Guard
// before any route (the console, the management REST API, the WAMP
// endpoint, the object store, permanent file URLs):
//
//   - Host. When the server listens on loopback only, a request must name
//     a loopback host in its Host header: localhost, an address in
//     127.0.0.0/8 or ::1, with or without a port, or one of the hosts the
//     Guard was told to allow. Anything else is 421 Misdirected Request.
//     This stops DNS rebinding: a page of attacker.example whose name is
//     made to resolve to 127.0.0.1 still sends Host: attacker.example. A
//     server listening on other interfaces cannot know every name it is
//     reached by, and takes any Host.
//   - Origin. A WebSocket upgrade that carries an Origin header (browsers
//     always send one; devices and other programs do not) is refused with
//     403 unless the origin is the server's own (the same host and port as
//     the request's Host) or one the Guard was told to allow: otherwise
//     any page the user opens could join realms from the user's machine.
//
// Refusals have a plain-text body that names the host or origin, the rule
// and how to allow it.
package edge

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gorilla/websocket"
)

// Config configures a Guard.
type Config struct {
	// Loopback says that the server listens on loopback only; the Host
	// rule applies then.
	Loopback bool
	// Hosts are host names or addresses a request may name besides the
	// loopback ones (Host rule), as ParseHost reads them.
	Hosts []string
	// Origins are browser origins that may open WebSocket links besides
	// the server's own, as ParseOrigin reads them.
	Origins []string
	Log     *slog.Logger
}

// Guard checks Host and Origin before handing a request on.
type Guard struct {
	loopback bool
	hosts    []string // normalised
	origins  []string // normalised
	log      *slog.Logger
	next     http.Handler
}

// New returns a Guard in front of next. It fails when an allowed host or
// origin cannot be read.
func New(cfg Config, next http.Handler) (*Guard, error) {
	g := &Guard{loopback: cfg.Loopback, log: cfg.Log, next: next}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	for _, h := range cfg.Hosts {
		n, err := ParseHost(h)
		if err != nil {
			return nil, err
		}
		g.hosts = append(g.hosts, n)
	}
	for _, o := range cfg.Origins {
		n, err := ParseOrigin(o)
		if err != nil {
			return nil, err
		}
		g.origins = append(g.origins, n)
	}
	return g, nil
}

// ServeHTTP refuses a request that breaks the Host or the Origin rule and
// hands the others on.
func (g *Guard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if g.loopback && !g.hostAllowed(r.Host) {
		g.log.Warn("refused a request for a host that is not served here", "host", r.Host, "path", r.URL.Path, "peer", r.RemoteAddr)
		refuse(w, http.StatusMisdirectedRequest, fmt.Sprintf("Host %q is not served here: this server listens on loopback and "+
			"answers only requests for localhost, 127.0.0.1 (any 127.x.y.z) or ::1, with any port, so that a web page "+
			"cannot reach it through a name of its own (DNS rebinding). Allow another name with flockd -allow-host NAME "+
			"(platformtest.WithAllowedHosts).", r.Host))
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && websocket.IsWebSocketUpgrade(r) && !g.originAllowed(origin, r) {
		g.log.Warn("refused a WebSocket link from another origin", "origin", origin, "host", r.Host, "peer", r.RemoteAddr)
		refuse(w, http.StatusForbidden, fmt.Sprintf("WebSocket links from the web page origin %q are refused: only pages "+
			"served by this server (%s://%s) may open one; programs that send no Origin always may. Allow that "+
			"origin with flockd -allow-origin %s (platformtest.WithAllowedOrigins).", origin, ownScheme(r), r.Host, origin))
		return
	}
	g.next.ServeHTTP(w, r)
}

// hostAllowed reports whether the Host header host names a loopback host
// or an allowed one.
func (g *Guard) hostAllowed(host string) bool {
	name, err := ParseHost(host)
	if err != nil {
		return false
	}
	if name == "localhost" || slices.Contains(g.hosts, name) {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// originAllowed reports whether a browser origin is the server's own (the
// scheme r came with, its Host header's host and port) or an allowed one.
func (g *Guard) originAllowed(origin string, r *http.Request) bool {
	o, err := ParseOrigin(origin)
	if err != nil {
		return false
	}
	if slices.Contains(g.origins, o) {
		return true
	}
	scheme, hostport, _ := strings.Cut(o, "://")
	return scheme == ownScheme(r) && hostport == withoutDefaultPort(scheme, strings.ToLower(r.Host))
}

// ownScheme is the scheme of the server's own pages as r reached it:
// https over TLS, else http.
func ownScheme(r *http.Request) string {
	if r.TLS != nil {
		return "https"
	}
	return "http"
}

// ParseHost reads a host as a Host header or an allowed host gives it:
// a name or an IP address, with or without a port (IPv6 in brackets).
// It returns the host without the port, in lower case, without a
// trailing dot.
func ParseHost(host string) (string, error) {
	h := strings.TrimSpace(host)
	if !strings.ContainsAny(h, "/?#@ ") {
		if hh, _, err := net.SplitHostPort(h); err == nil {
			h = hh
		}
		h = strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
	}
	if h == "" || strings.ContainsAny(h, "/?#@ ") {
		return "", fmt.Errorf("allowed host %q: want a host name or an IP address, such as flockd.lan or 192.168.1.20", host)
	}
	return h, nil
}

// ParseOrigin reads a web origin, scheme://host[:port] with scheme http
// or https, and returns it in lower case without a default port.
func ParseOrigin(origin string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(origin))
	bad := func() (string, error) {
		return "", fmt.Errorf("allowed origin %q: want scheme://host[:port] with scheme http or https, such as http://localhost:5173", origin)
	}
	if err != nil || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return bad()
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return bad()
	}
	return scheme + "://" + withoutDefaultPort(scheme, strings.ToLower(u.Host)), nil
}

// withoutDefaultPort drops :80 from an http host and :443 from an https
// one, as browsers do in an Origin.
func withoutDefaultPort(scheme, hostport string) string {
	switch {
	case scheme == "http" && strings.HasSuffix(hostport, ":80"):
		return strings.TrimSuffix(hostport, ":80")
	case scheme == "https" && strings.HasSuffix(hostport, ":443"):
		return strings.TrimSuffix(hostport, ":443")
	}
	return hostport
}

// refuse answers a refusal in plain text.
func refuse(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = fmt.Fprintln(w, msg)
}
