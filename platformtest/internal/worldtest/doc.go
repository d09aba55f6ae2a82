// Package worldtest is what the wire-level tests of the fake platform share:
// the tests of package platformtest and those of the services beside their
// code (internal/fleetdb, internal/rest, internal/fleetfiles, in external
// test packages). It holds raw WAMP clients and calls, the management API's
// requests and error checks, timestamps and queries of the data backend,
// the PostgreSQL helpers and the list of backends a suite runs on
// (storetest.Kinds).
//
// It never imports platformtest, whose own tests use it: a platform is seen
// through the small interfaces below, which *platformtest.Platform and
// *platformtest.Installation satisfy, and the facade's options of each
// backend are given by the test package (Backends).
//
// Only tests import this package.
package worldtest

import (
	"github.com/flockgo/ironflock/platformtest/internal/testhooks"
)

// Router is a platform's WAMP side: *platformtest.Platform.
type Router interface {
	// URL is the WebSocket URL of the router.
	URL() string
}

// Server is a platform's HTTP side: *platformtest.Platform.
type Server interface {
	// HTTPURL is the root URL of the HTTP server.
	HTTPURL() string
}

// Member is a session's identity in a realm: *platformtest.Installation.
type Member interface {
	// Realm is the realm the member joins.
	Realm() string
	// Credentials are the WAMP-CRA authid and secret.
	Credentials() (authid, secret string)
}

// Every platform of a test that uses this package checks at Close that its
// registry kept every change (an entity changed without being marked
// would be lost at a restart with a data folder).
func init() { testhooks.AuditOnClose = true }
