// This file serves permanent object URLs on the platform's HTTP server
// (docs/fake.md, the file service):
//
//	GET|HEAD /f/<sad_key>/<namespace>/<key>[?v=<etag>]
//
// A permanent URL is readable only by an authenticated requestor with
// READ access on the data backend, checked on every request:
//
//   - HTTP Basic with a WAMP-CRA credential that the realm admits, judged
//     as a join would be (registry.State.Judge): the app's per-app
//     credential (authid app-<A>-<stage>-e<epoch>@<serial>, its secret),
//     or the legacy one (serial, serial) where the platform admits it.
//     Role app reads everything, app_reader (a granted consuming app)
//     every namespace that is not private;
//   - a management API bearer token (Authorization: Bearer) of a user who
//     is a member of the realm's project.
//
// No credential, or one that is not admitted: 401 with a Basic challenge;
// a private namespace for a consuming app: 403; an unknown data backend,
// namespace or object: 404. With ?v= equal to the object's etag the answer
// may be cached for good (Cache-Control: private, max-age=31536000,
// immutable); otherwise it is revalidated (private, no-cache). Range and
// conditional requests work as on the object store, and so do the
// headers that keep an object from acting on the platform's origin
// (serve_object.go).

package fleetfiles

import (
	"crypto/subtle"
	"net/http"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// basicRealm is the realm of the Basic challenge of permanent URLs.
const basicRealm = `Basic realm="IronFlock files", charset="UTF-8"`

func (s *Service) servePermanent(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Absent {
		http.NotFound(w, r)
		return
	}
	inertHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, wire.FilesPermanentPath)
	sadText, rest, _ := strings.Cut(rest, "/")
	nsName, key, _ := strings.Cut(rest, "/")
	sad, err := strconv.ParseInt(sadText, 10, 64)
	b := s.bucketBySad(sad)
	if err != nil || b == nil || key == "" {
		http.NotFound(w, r)
		return
	}
	role, ok := b.requestor(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", basicRealm)
		http.Error(w, "a permanent file URL needs credentials with read access on the app's data backend", http.StatusUnauthorized)
		return
	}
	ns, f := b.namespace(nsName)
	if f != nil {
		http.NotFound(w, r)
		return
	}
	if role == wire.RoleAppReader && ns.Private {
		http.Error(w, "namespace "+strconv.Quote(ns.Name)+" is private to the app", http.StatusForbidden)
		return
	}
	b.sweep(s.cfg.Clock.Now())
	o, content, f := b.open(ns.Name, key)
	if f != nil {
		http.NotFound(w, r)
		return
	}
	defer content.Close()
	if v := r.URL.Query().Get(wire.VersionParam); v != "" && v == o.MD5 {
		w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
	} else {
		w.Header().Set("Cache-Control", "private, no-cache")
	}
	serveObject(countingWriter{w, &s.met.read}, r, o, content, false)
}

// requestor authenticates the request for b's realm and returns the
// requestor's role: app or app_reader for a WAMP-CRA credential, the
// project role for a management user.
func (b *bucket) requestor(r *http.Request) (string, bool) {
	role, ok := "", false
	if user, pass, basic := r.BasicAuth(); basic {
		b.svc.cfg.Registry.Do(func(s *registry.State) {
			v := s.Judge(b.ri, user)
			if v.Reason == "" && subtle.ConstantTimeCompare([]byte(v.Secret), []byte(pass)) == 1 {
				role, ok = v.Role, true
			}
		})
		return role, ok
	}
	token, bearer := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !bearer {
		return "", false
	}
	b.svc.cfg.Registry.Do(func(s *registry.State) {
		u := s.UserByToken(strings.TrimSpace(token))
		if pr := s.Project(b.ri.Swarm); u != nil && pr != nil {
			role = s.Role(u, pr)
			ok = role != ""
		}
	})
	return role, ok
}
