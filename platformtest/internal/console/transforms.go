// This file serves the transforms on the tables page (tables.go):
//
//	GET  /tables                                           each realm's transforms: kind
//	                                                       (view / materialized), schedule,
//	                                                       when the store last computed it
//	POST /tables/{realm}/transforms/{transform}/refresh    recompute one and publish it
//	                                                       (needs Config.Write)
//
// A refresh is what a schedule tick does (fleetdb.DB.RefreshTransform): with
// PostgreSQL a materialized transform is computed again from its SQL.

package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"
)

// transformRef is a transform as the tables page lists it.
type transformRef struct {
	Name         string
	Materialized bool
	Schedule     string
	Refreshed    time.Time // zero: the store does not say
}

// Kind is "materialized" or "view".
func (t transformRef) Kind() string {
	if t.Materialized {
		return "materialized"
	}
	return "view"
}

// transformsOf returns the transforms of a realm's data backend.
func (c *Console) transformsOf(realm string) ([]transformRef, error) {
	infos, err := c.cfg.Fleet.Transforms(context.Background(), realm)
	if err != nil {
		return nil, err
	}
	out := make([]transformRef, 0, len(infos))
	for _, ti := range infos {
		out = append(out, transformRef{Name: ti.Name, Materialized: ti.Materialized, Schedule: ti.Schedule, Refreshed: ti.Refreshed})
	}
	return out, nil
}

// refreshTransform recomputes a transform and goes back to the tables
// page (post/redirect/get), logging the action.
func (c *Console) refreshTransform(w http.ResponseWriter, r *http.Request) {
	if !c.writable(w, r) {
		return
	}
	realm, name := r.PathValue("realm"), r.PathValue("transform")
	if _, ok := c.realmNamed(realm); !ok {
		c.fail(w, r, http.StatusNotFound, "There is no realm "+realm+".")
		return
	}
	refs, err := c.transformsOf(realm)
	if err != nil {
		c.fail(w, r, http.StatusInternalServerError, err.Error())
		return
	}
	if !slices.ContainsFunc(refs, func(t transformRef) bool { return t.Name == name }) {
		c.fail(w, r, http.StatusNotFound, "Realm "+realm+" has no transform "+name+".")
		return
	}
	what := fmt.Sprintf("refresh transform %s of %s", name, realm)
	if err := c.cfg.Fleet.RefreshTransform(r.Context(), realm, name); err != nil {
		c.logAction(what, "failed: "+err.Error())
		c.fail(w, r, http.StatusInternalServerError, "Refresh of transform "+name+" of "+realm+" failed: "+err.Error())
		return
	}
	c.logAction(what, "done")
	http.Redirect(w, r, "/tables?refreshed="+url.QueryEscape(name)+"#"+realm, http.StatusSeeOther)
}

// transformsView fills the transforms of each realm of the tables page.
func (c *Console) transformsView(realms []realmTables) {
	for i := range realms {
		if realms[i].Err != "" {
			continue
		}
		refs, err := c.transformsOf(realms[i].Realm)
		if err != nil {
			realms[i].Err = err.Error()
			continue
		}
		realms[i].Transforms = refs
	}
}
