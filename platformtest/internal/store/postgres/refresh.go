// This file holds the refresh of materialized transforms outside their
// schedules: after the rows a configuration seeds went in (platformtest's
// Reconcile) and on demand (flockd's REST route, the console's button),
// and what the console shows of each transform: its kind and when the
// PostgreSQL store last computed it (at Open, which makes the views anew
// with their data after every migration, and at each refresh). It serves
// no URI.

package postgres

import (
	"slices"
	"time"
)

// materialized returns the names of the realm's materialized transforms.
func (t *pgTables) materialized() []string {
	var out []string
	for name, v := range t.views {
		if v.Def != nil && v.Def.Materialize {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// noteRefreshed records that the named materialized transforms were
// computed at at.
func (t *pgTables) noteRefreshed(at time.Time, names ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.refreshed == nil {
		t.refreshed = map[string]time.Time{}
	}
	for _, n := range names {
		t.refreshed[n] = at.UTC()
	}
}

// RefreshedAt returns when a materialized transform was last computed.
func (t *pgTables) RefreshedAt(transform string) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.refreshed[transform]
}
