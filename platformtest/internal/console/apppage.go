// This file serves an app's page:
//
//	GET /apps/{key}  one app: releases, one page of its installations (?q=,
//	                 ?page=, ?realm=NAME: those in one realm), tables, agents

package console

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// appPageView is the app's page: the app with one page of its
// installations (pager.go: searched by device name, serial or key),
// those of one realm when the query names one.
type appPageView struct {
	appPage
	Pager pager
	Realm string // the realm whose installations are listed (?realm=); "": all
}

func (c *Console) app(w http.ResponseWriter, r *http.Request) {
	key, _ := strconv.Atoi(r.PathValue("key"))
	l := c.liveness()
	var v appPageView
	found, problem := false, ""
	c.cfg.Registry.Do(func(s *registry.State) {
		s.Settle()
		a := s.App(key)
		if a == nil {
			return
		}
		found = true
		var all, matches []*registry.Installation
		if v.Realm = r.URL.Query().Get("realm"); v.Realm != "" {
			if ri, ok := s.Realm(v.Realm); !ok || ri.App != a.Key {
				problem = "App " + a.Name + " has no realm " + strconv.Quote(v.Realm) + " (parameter realm)."
				return
			}
			all, _ = s.RealmInstalls(v.Realm, -1) // by device key
		} else {
			for _, d := range s.Devices() {
				all = append(all, s.InstallsOf(d, a.Key)...)
			}
		}
		q := strings.TrimSpace(r.URL.Query().Get("q"))
		for _, in := range all {
			if search(q, in.Device.Name, in.Device.Serial, in.Device.Key) {
				matches = append(matches, in)
			}
		}
		av := appOf(s, a, len(all))
		var lo, hi int
		v.Pager, lo, hi = newPager(r.URL.Query(), len(all), len(matches))
		for _, in := range matches[lo:hi] {
			av.Installations = append(av.Installations, l.install(in))
		}
		v.appPage = appPage{appView: av, TableLinks: tableLinks(av)}
	})
	if !found {
		c.fail(w, r, http.StatusNotFound, "There is no app with key "+r.PathValue("key")+".")
		return
	}
	if problem != "" {
		c.fail(w, r, http.StatusNotFound, problem)
		return
	}
	c.render(w, "app", "App "+v.Name, "/fleet", v)
}
