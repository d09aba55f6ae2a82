// This file holds the console's access checks: the token, when one is
// configured (a bearer token, the console's cookie, or ?token= once, which
// sets the cookie), the refusal of POSTs from other origins, and the
// read-only mode.

package console

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"strings"
)

// CookieName is the cookie that carries the console token once given.
const CookieName = "flockd_console"

// admit reports whether r may be served, answering it when not.
func (c *Console) admit(w http.ResponseWriter, r *http.Request) bool {
	if tok := c.cfg.Token; tok != "" {
		q := r.URL.Query()
		if given := q.Get("token"); given != "" && equal(given, tok) {
			http.SetCookie(w, &http.Cookie{Name: CookieName, Value: tok, Path: "/", HttpOnly: true,
				SameSite: http.SameSiteStrictMode})
			q.Del("token")
			u := url.URL{Path: r.URL.Path, RawQuery: q.Encode()}
			http.Redirect(w, r, u.String(), http.StatusSeeOther)
			return false
		}
		if !c.tokenGiven(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="flockd console"`)
			c.fail(w, r, http.StatusUnauthorized, "This console needs the token flockd printed in its log when it started "+
				"(the line \"console token\"). Open the URL of that line, or add ?token=TOKEN to this address once.")
			return false
		}
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead && !sameOrigin(r) {
		c.fail(w, r, http.StatusForbidden, "This request came from another site; the console only takes its own forms.")
		return false
	}
	return true
}

// tokenGiven reports whether r carries the token as a bearer token or in
// the console's cookie.
func (c *Console) tokenGiven(r *http.Request) bool {
	if h, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && equal(h, c.cfg.Token) {
		return true
	}
	ck, err := r.Cookie(CookieName)
	return err == nil && equal(ck.Value, c.cfg.Token)
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// sameOrigin reports whether a state-changing request comes from the
// console's own pages: browsers say so in Sec-Fetch-Site or Origin (its
// scheme, host and port must be the console's); a request with neither
// (curl) is let through.
func sameOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	o := r.Header.Get("Origin")
	return o == "" || ownOrigin(r, o)
}

// sameSite reports whether a GET that costs the server (a SQL query)
// comes from the console's own pages, which a GET sent by another site
// (an <img>, a link) cannot claim: Sec-Fetch-Site says same-origin or
// none (typed in the address bar), or, from a browser without it, Origin
// or Referer is the console's own. A request that says nothing (curl) is
// refused.
func sameSite(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return true
	case "":
	default:
		return false
	}
	if o := r.Header.Get("Origin"); o != "" {
		return ownOrigin(r, o)
	}
	ref := r.Header.Get("Referer")
	return ref != "" && ownOrigin(r, ref)
}

// ownOrigin reports whether the origin (or URL) o is the console's own:
// the same scheme, host and port as the request r was sent to.
func ownOrigin(r *http.Request, o string) bool {
	u, err := url.Parse(o)
	if err != nil || u.Host != r.Host {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return u.Scheme == scheme
}

// writable reports whether actions are allowed, answering 403 when not.
func (c *Console) writable(w http.ResponseWriter, r *http.Request) bool {
	if c.cfg.Write {
		return true
	}
	c.fail(w, r, http.StatusForbidden, readOnlyText)
	return false
}

// readOnlyText explains the read-only mode.
const readOnlyText = "The console is read-only: flockd was started without -console-write " +
	"(Go: platformtest.Console{Write: true}), so faults and tool calls are off."
