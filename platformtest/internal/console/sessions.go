// This file serves the live sessions:
//
//	GET /sessions  one page of the joined sessions (pager.go: ?q= searches by
//	               device name, authid or device key; ?page=), by realm, each
//	               realm with how many sessions it has (authid, role, device,
//	               since when); the page refreshes itself with JavaScript

package console

import (
	"net/http"
	"strings"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/router"
)

type sessionView struct {
	ID                 uint64
	AuthID, AuthIDSent string
	Role               string
	DeviceKey          int
	Device             string
	App                string
	Stage              string
	Joined             time.Time
	For                string // how long it has been joined
}

type realmSessions struct {
	Realm    string
	Total    int // the realm's sessions, on this page or not
	Sessions []sessionView
}

type sessionsView struct {
	Pager  pager
	Realms []realmSessions // the sessions of the page, by realm
}

func (c *Console) sessions(w http.ResponseWriter, r *http.Request) {
	now := c.cfg.Clock.Now()
	all := c.cfg.Router.Sessions() // oldest first
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	devices, apps := make([]string, len(all)), map[int]string{}
	var matches []int // indexes in all
	c.cfg.Registry.Do(func(s *registry.State) {
		for i, ss := range all {
			if d := s.Device(ss.DeviceKey); d != nil {
				devices[i] = d.Name
			}
			if search(q, devices[i], ss.AuthID, ss.DeviceKey) {
				matches = append(matches, i)
			}
		}
		for _, a := range s.Apps() {
			apps[a.Key] = a.Name
		}
	})
	var v sessionsView
	var lo, hi int
	v.Pager, lo, hi = newPager(r.URL.Query(), len(all), len(matches))
	at, total := map[string]int{}, map[string]int{}
	for _, ss := range all {
		total[ss.Realm]++
	}
	for _, i := range matches[lo:hi] {
		ss := all[i]
		j, ok := at[ss.Realm]
		if !ok {
			j = len(v.Realms)
			at[ss.Realm] = j
			v.Realms = append(v.Realms, realmSessions{Realm: ss.Realm, Total: total[ss.Realm]})
		}
		v.Realms[j].Sessions = append(v.Realms[j].Sessions, sessionOf(ss, devices[i], apps[ss.AppKey], now))
	}
	c.render(w, "sessions", "Sessions", "/sessions", v)
}

// sessionOf returns the view of a session of device and app.
func sessionOf(s router.SessionInfo, device, app string, now time.Time) sessionView {
	return sessionView{ID: s.ID, AuthID: s.AuthID, AuthIDSent: s.AuthIDSent, Role: s.AuthRole, DeviceKey: s.DeviceKey,
		Device: device, App: app, Stage: s.Stage, Joined: s.Joined, For: now.Sub(s.Joined).Round(time.Second).String()}
}
