// This file holds the Console: its configuration, its routes and the
// action log. The pages are in one file each (fleet.go with apppage.go,
// locations.go and mapview.go, sessions.go, traffic.go with
// traffic_live.go, tables.go with rows.go, chart.go, files.go, agents.go
// with agentserve.go, sql.go, faults.go, env.go), the capped lists of
// devices in capped.go, the access checks in auth.go, rendering in
// render.go.

package console

import (
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/agents"
	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/fleetfiles"
	"github.com/flockgo/ironflock/platformtest/internal/metrics"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/router"
	"github.com/flockgo/ironflock/template"
)

// Config is what the console needs from the platform.
type Config struct {
	Registry *registry.Registry
	Router   *router.Router
	Fleet    *fleetdb.DB
	Files    *fleetfiles.Service
	Agents   *agents.Runtime
	Clock    realm.Clock
	Log      *slog.Logger
	// Lookup returns a provisioned realm and its app's data template (nil:
	// no tables).
	Lookup func(realm string) (realm.Info, *template.DataTemplate, error)
	// Env returns the environment a device agent injects into an
	// installation's app (nil when there is none).
	Env func(deviceKey, appKey int, stage string) map[string]string
	// RefuseWrites switches the storage refusal of a realm: mode is
	// "storage_full", "storage_overusage" or "accept".
	RefuseWrites func(realm, mode string)
	// Refusing returns the realms whose writes are refused.
	Refusing func() []string
	// Storage returns where the platform keeps its world (storage.go);
	// nil: the overview shows nothing of it.
	Storage func() Storage
	// NoLocationService says the platform runs without the location
	// service, so no device has a location.
	NoLocationService bool
	// Write allows the fault buttons and tool calls.
	Write bool
	// Token, when not empty, is required from every request.
	Token string
	// Metrics is the platform's registry, which the traffic page shows
	// (as flockd's /metrics serves it); nil: the page shows none.
	Metrics *metrics.Registry
}

// HeaderName is a header on every answer of the console, so that a
// client (flockd env) tells them from those of a platform without one.
const HeaderName = "X-Flockd-Console"

// maxActions is how many actions the action log keeps.
const maxActions = 100

// Action is one thing done from the console.
type Action struct {
	Time   time.Time
	What   string // what was asked
	Result string // what happened
}

// Console serves the web console. It is an http.Handler, safe for
// concurrent use.
type Console struct {
	cfg Config
	mux *http.ServeMux

	mu      sync.Mutex
	actions []Action // newest last
}

// New returns a console over the platform's parts.
func New(cfg Config) *Console {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	c := &Console{cfg: cfg, mux: http.NewServeMux()}
	routes := map[string]http.HandlerFunc{
		"GET /{$}":                    c.overview,
		"GET /fleet":                  c.fleet,
		"GET /devices/{key}":          c.device,
		"GET /env/{device}":           c.env,
		"GET /apps/{key}":             c.app,
		"GET /sessions":               c.sessions,
		"GET /traffic":                c.traffic,
		"GET /traffic/stream":         c.trafficStream,
		"GET /traffic/live":           c.trafficLive, // traffic_live.go
		"GET /tables":                 c.tables,
		"GET /tables/{realm}/{table}": c.table,
		"POST /tables/{realm}/transforms/{transform}/refresh": c.refreshTransform, // transforms.go
		"GET /tables/{realm}/{table}/row":                     c.rowEditor,        // rows.go
		"POST /tables/{realm}/{table}/row":                    c.rowAppend,
		"GET /files":                                          c.files,
		"GET /files/{realm}":                                  c.bucket,
		"GET /files/{realm}/object":                           c.download,
		"GET /agents":                                         c.agents,
		"GET /agents/{realm}/{device}/{agent}/{tool}":         c.toolForm,
		"GET /agents/{realm}/device/{agent}/{tool}":           c.toolPick,
		"POST /agents/{realm}/{device}/{agent}/{tool}":        c.toolCall,
		"GET /sql":              c.sql,
		"GET /faults":           c.faults,
		"POST /faults/{action}": c.fault,
		"GET /assets/{file}":    c.asset,
	}
	for pattern, h := range routes {
		c.mux.HandleFunc(pattern, h)
	}
	c.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		c.fail(w, r, http.StatusNotFound, "There is no page at "+r.URL.Path+".")
	})
	return c
}

// ServeHTTP checks access and serves a console page.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set(HeaderName, "1") // flockd env tells the console's answers from others
	if !c.admit(w, r) {
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'")
	c.mux.ServeHTTP(w, r)
}

// logAction records an action in the action log and the platform's log.
func (c *Console) logAction(what, result string) {
	a := Action{Time: c.cfg.Clock.Now(), What: what, Result: result}
	c.mu.Lock()
	if len(c.actions) >= maxActions {
		c.actions = append(c.actions[:0], c.actions[1:]...)
	}
	c.actions = append(c.actions, a)
	c.mu.Unlock()
	c.cfg.Log.Info("console action", "what", what, "result", result)
}

// Actions returns the action log, newest first.
func (c *Console) Actions() []Action {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Action, len(c.actions))
	for i, a := range c.actions {
		out[len(out)-1-i] = a
	}
	return out
}
