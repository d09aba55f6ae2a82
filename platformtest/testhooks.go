package platformtest

import (
	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/testhooks"
)

// The hooks of the services' wire-level tests (package
// internal/testhooks): what they need of a Platform that users never see.
func init() {
	testhooks.Registry = func(p any) *registry.Registry { return p.(*Platform).reg }
	testhooks.Dropped = func(p any, realm, table string) []fleetdb.DropCount {
		return p.(*Platform).fleet.Dropped(realm, table)
	}
}
