// This file serves the live sessions:
//
//	GET /sessions  the joined sessions per realm (authid, role, device, since
//	               when); the page refreshes itself with JavaScript

package console

import (
	"net/http"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
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
	Sessions []sessionView
}

func (c *Console) sessions(w http.ResponseWriter, r *http.Request) {
	now := c.cfg.Clock.Now()
	devices, apps := map[int]string{}, map[int]string{}
	c.cfg.Registry.Do(func(s *registry.State) {
		for _, d := range s.Devices() {
			devices[d.Key] = d.Name
		}
		for _, a := range s.Apps() {
			apps[a.Key] = a.Name
		}
	})
	var out []realmSessions
	at := map[string]int{}
	for _, s := range c.cfg.Router.Sessions() {
		i, ok := at[s.Realm]
		if !ok {
			i = len(out)
			at[s.Realm] = i
			out = append(out, realmSessions{Realm: s.Realm})
		}
		out[i].Sessions = append(out[i].Sessions, sessionView{ID: s.ID, AuthID: s.AuthID, AuthIDSent: s.AuthIDSent,
			Role: s.AuthRole, DeviceKey: s.DeviceKey, Device: devices[s.DeviceKey], App: apps[s.AppKey], Stage: s.Stage,
			Joined: s.Joined, For: now.Sub(s.Joined).Round(time.Second).String()})
	}
	c.render(w, "sessions", "Sessions", "/sessions", out)
}
