// This file holds the router's readiness, for flockd's /readyz: up, with
// every provisioned realm in the router and every service attached to it.

package router

import (
	"fmt"
	"slices"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Ready returns nil when the router is up and every provisioned realm is
// in it with its platform session joined and every service (the data
// backend among them) attached; else an error saying what is missing,
// naming up to three realms. A withheld realm is not ready.
func (rt *Router) Ready() error {
	var provisioned []realm.Info
	rt.reg.View(func(s *registry.State) { provisioned = s.Realms() })
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return fmt.Errorf("the router is closed")
	}
	if rt.gen == nil {
		rt.mu.Unlock()
		return fmt.Errorf("the router is down")
	}
	var missing, failed []string
	for _, ri := range provisioned {
		rr := rt.gen.realms[ri.Name]
		switch {
		case rr == nil && rt.withheld[ri.Name]:
			missing = append(missing, ri.Name+" (withheld)")
		case rr == nil:
			missing = append(missing, ri.Name)
		case rr.host.Session == nil:
			failed = append(failed, ri.Name+": the platform session could not join")
		default:
			rr.mu.Lock()
			for _, s := range rr.failed {
				failed = append(failed, ri.Name+": service "+s+" could not attach")
			}
			rr.mu.Unlock()
		}
	}
	rt.mu.Unlock()
	var parts []string
	if len(missing) > 0 {
		slices.Sort(missing)
		parts = append(parts, fmt.Sprintf("%d of %d realms not in the router (%s)", len(missing), len(provisioned), few(missing)))
	}
	if len(failed) > 0 {
		slices.Sort(failed)
		parts = append(parts, fmt.Sprintf("%d backends not attached (%s)", len(failed), few(failed)))
	}
	if len(parts) > 0 {
		return fmt.Errorf("not ready: %s", strings.Join(parts, "; "))
	}
	return nil
}

// few joins at most three of names, saying how many more there are.
func few(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:3], ", "), len(names)-3)
}
