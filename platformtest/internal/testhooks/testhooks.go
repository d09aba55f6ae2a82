// Package testhooks reaches the few parts of a platformtest.Platform that
// its users never see, for the wire-level tests of the services, which live
// beside the services in external test packages (fleetdb_test, rest_test,
// fleetfiles_test) and so cannot use the facade's unexported names.
// Package platformtest sets the functions in an init; only tests call them.
// Nothing here is API: a user has no way to name this package.
package testhooks

import (
	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// AuditOnClose makes Close of a platform made by platformtest.New check
// that its registry kept every change (registry.Audit): an entity changed
// without being marked would be lost at a restart with a data folder.
// Package worldtest sets it, so every test that uses worldtest audits.
var AuditOnClose bool

// Registry returns the registry of p, a *platformtest.Platform.
var Registry func(p any) *registry.Registry

// Dropped returns what the data backend of p, a *platformtest.Platform,
// counted as dropped from writes to a realm's table (fleetdb.DB.Dropped).
var Dropped func(p any, realm, table string) []fleetdb.DropCount
