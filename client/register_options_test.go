package client

import (
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
)

// TestRegisterOptionsShared: registrations start from shared options, and
// an option given to one changes its own copy, never the shared base.
func TestRegisterOptionsShared(t *testing.T) {
	rs := registerSettings{options: deviceFunctionOptions}
	ForceReregister(false)(&rs)
	ForceReregister(false)(&rs) // on its own copy already
	if got := rs.options[wire.OptForceReregister]; got != false {
		t.Errorf("the registration's force_reregister is %v", got)
	}
	if got := deviceFunctionOptions[wire.OptForceReregister]; got != true || len(deviceFunctionOptions) != 1 {
		t.Errorf("the shared device function options became %v", deviceFunctionOptions)
	}
	ps := registerSettings{options: procedureOptions}
	ForceReregister(true)(&ps)
	if len(procedureOptions) != 0 || ps.options[wire.OptForceReregister] != true {
		t.Errorf("procedure options: shared %v, the registration's %v", procedureOptions, ps.options)
	}
}
