// This file serves flockd's route that refreshes a transform on demand,
// which is not part of the platform's API (docs/flockd.md §6):
//
//	POST /v1/flockd/devices/{device_key}/apps/{app_key}/transforms/{transform}/refresh?stage=
//	     recompute a transform of the app backend of the device's installation
//	     (a materialized one: PostgreSQL's REFRESH MATERIALIZED VIEW) and
//	     publish it on transformed.<transform>, as its schedule does
//
// It authenticates like the platform's routes and needs the admin role of
// the device's project. The answer is 200 with the realm, the transform,
// whether the store keeps its result and when it computed it.

package rest

import (
	"net/http"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// TransformRefresh is the answer of the refresh route.
type TransformRefresh struct {
	Realm     string `json:"realm"`
	Transform string `json:"transform"`
	// Materialized: the store keeps the transform's result (a
	// materialized view); a plain view is computed on every read.
	Materialized bool `json:"materialized"`
	// RefreshedAt is when the store computed it; null when it does not
	// say (the memory store, a plain view).
	RefreshedAt *time.Time `json:"refreshed_at"`
}

func (api *API) restRefreshTransform(c *restCall) (int, any, *apiError) {
	var realm, name string
	if _, _, err := api.read(c, func() (int, any, *apiError) {
		d, err := c.pathDevice(nil)
		if err != nil {
			return 0, nil, err
		}
		in, err := c.pathInstall(d)
		if err != nil {
			return 0, nil, err
		}
		name = c.r.PathValue("transform")
		tpl, perr := registry.ParseDataTemplate(in.App.DataTemplate)
		if perr != nil || tpl == nil {
			return 0, nil, notFound("app %d has no data template", in.App.Key)
		}
		if _, ok := tpl.Transform(name); !ok {
			return 0, nil, notFound("transform %q not found in the data template of app %d", name, in.App.Key)
		}
		if err := c.requireAdmin(d.Project); err != nil {
			return 0, nil, err
		}
		realm = in.Realm
		return 0, nil, nil
	}); err != nil {
		return 0, nil, err
	}
	if api.cfg.RefreshTransform == nil {
		return 0, nil, errorf(http.StatusInternalServerError, wire.CodeInternal, "this server has no data backends to refresh")
	}
	materialized, at, err := api.cfg.RefreshTransform(c.r.Context(), realm, name)
	if err != nil {
		return 0, nil, errorf(http.StatusInternalServerError, wire.CodeInternal, "refresh transform %q of %s: %v", name, realm, err)
	}
	out := TransformRefresh{Realm: realm, Transform: name, Materialized: materialized}
	if !at.IsZero() {
		t := at.UTC()
		out.RefreshedAt = &t
	}
	return http.StatusOK, out, nil
}
