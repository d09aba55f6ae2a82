// Package console is the web console of the fake platform: HTML pages,
// served by flockd on the platform's own HTTP server at /, that show the
// fleet (projects, devices with their environment, apps and releases,
// installations with realm and stage, groups, grants), the live sessions
// and the live traffic, the rows of tables with what writes lost and a
// chart of a numeric column, the stored files and the agents' tools,
// read-only SQL on a realm's data backend (with the PostgreSQL store), and
// that break things on purpose (faults) and call tools when allowed. One
// route answers in plain text: GET /env/{device}, an installation's
// environment, for flockd env and the device page's downloads.
//
// It lives under platformtest/internal, not in cmd/flockd, because most of
// what it shows is not in the platformtest facade's exported API and
// should not be: the fleet listing with releases, groups and grants comes
// from internal/registry, the live traffic (results and errors included)
// from a tap of internal/router, table reads with paging, the latest
// marker and series from internal/fleetdb, file usage from
// internal/fleetfiles and tool calls from internal/agents. Going to those
// packages directly keeps the facade thin: it exposes the console with one
// option, platformtest.WithConsole, which mounts it on the platform's HTTP
// mux, and flockd passes its flags to that option.
//
// Pages are plain HTML (html/template) that work without JavaScript; one
// small script, embedded like the style sheet, follows the live traffic
// over a same-origin WebSocket (/traffic/live; /traffic/stream serves the
// same as server-sent events to other clients; a WebSocket is no pending
// fetch, so the page finishes loading), with a pause button, and refreshes
// the sessions page and a table's chart and rows. Charts and the fleet map
// (fitted to the devices, zoomed and panned with links) are SVG drawn on
// the server. Nothing is fetched from elsewhere.
//
// No page lists a whole fleet: long lists (the devices, an app's
// installations, the sessions) are paged and searched (pager.go), and a
// list inside a page (a group's members, a realm's or a tool's devices)
// names at most ten, says how many there are and links to the paged list
// (capped.go), so a console over 100,000 devices stays usable.
//
// Everything is read-only unless Config.Write is set: then the fault
// buttons, tool calls (offered only on the devices that serve the tool)
// and row appends from a table's page work, each saying what it will do,
// and each action is logged (slog and the console's own action log). When
// Config.Token is set, every request needs it (a bearer token, the cookie
// the console sets, or ?token= once); POSTs from another origin are
// refused.
package console
