// This file is the facade of the web console (package internal/console):
// the option that mounts it at / on the platform's HTTP server, as flockd
// does. It serves no URI of the platform's API.

package platformtest

import (
	"net/http"

	"github.com/flockgo/ironflock/platformtest/internal/console"
)

// Console configures the web console that WithConsole mounts.
type Console struct {
	// Write allows the console's fault buttons (drop, freeze, restart,
	// withhold, release, refuse writes) and agent tool calls. Without it
	// the console only shows.
	Write bool
	// Token, when not empty, is required from every console request: as
	// "Authorization: Bearer TOKEN", or as ?token=TOKEN once, after which
	// the console keeps it in a cookie.
	Token string
}

// ConsoleHeader is a header every answer of the console carries, so that a
// client (flockd env) tells them from the answers of a platform without a
// console.
const ConsoleHeader = console.HeaderName

// WithConsole serves the web console at / on the platform's HTTP server
// (the routes of the platform's API, the WAMP endpoint and the object
// store keep theirs): the fleet, sessions, live traffic, tables with
// charts, files, agent tools and faults, as docs/flockd.md describes.
// Tests and flockd use it; without it / answers 404.
func WithConsole(c Console) Option {
	return func(s *settings) { s.console = &c }
}

// mountConsole mounts the console on mux when WithConsole asked for it.
func (p *Platform) mountConsole(mux *http.ServeMux) {
	c := p.set.console
	if c == nil {
		return
	}
	mux.Handle("/", console.New(console.Config{
		Registry: p.reg, Router: p.rt, Fleet: p.fleet, Files: p.files, Agents: p.agents,
		Clock: p.clock, Log: p.log, Lookup: p.realmDataTemplate,
		Env: func(device, app int, stage string) map[string]string {
			if in := p.InstallationOf(device, app, Stage(stage)); in != nil {
				return in.Env()
			}
			return nil
		},
		RefuseWrites: func(realm, mode string) {
			r := map[string]WriteRefusal{"storage_full": StorageFull, "storage_overusage": StorageOverusage}[mode]
			p.RefuseWrites(realm, r)
		},
		Refusing: p.fleet.RefusingWrites,
		Storage:  p.consoleStorage, // postgres.go
		Write:    c.Write, Token: c.Token, NoLocationService: p.set.noLocation, Metrics: p.set.metrics,
	}))
}
