// This file serves the faults:
//
//	GET  /faults           every fault with what it does, the state of the
//	                       realms and the action log
//	POST /faults/{action}  drop, freeze, restart, withhold (realm=),
//	                       release (realm=), refuse-writes (realm=, mode=
//	                       storage_full|storage_overusage|accept),
//	                       accept-writes (realm=), auth-outage (mode=
//	                       30s|2m|10m|until-ended), end-auth-outage
//
// A button is offered only when its fault can act: dropping and freezing
// need a joined session, releasing a withheld realm, withholding a realm
// that is not, accepting writes a realm that refuses them, ending an
// authenticator outage while one lasts; otherwise it
// is disabled with the reason. Releasing, withholding and accepting a
// realm that cannot be are refused with 409.
//
// Actions need Config.Write. Each is logged with what it did, and answered
// with a redirect to /faults?done=1, which shows it, so that reloading
// does not repeat it. Dropping connections and restarting the router close
// the console's own connection too, so those answer with the page first
// and act once the answer is out.

package console

import (
	"fmt"
	"net/http"
	"slices"
	"time"
)

// faultSpec describes one fault button.
type faultSpec struct {
	Action string
	Title  string
	Does   string // what it will do, shown beside the button
	Realm  bool   // asks for a realm
	Modes  []string
}

// faultSpecs are the faults, in the order the page shows them.
var faultSpecs = []faultSpec{
	{Action: "drop", Title: "Drop connections",
		Does: "Closes every connection abruptly (no close frame, no GOODBYE). Clients see their transport fail and reconnect. This page's own connection drops too."},
	{Action: "freeze", Title: "Freeze links",
		Does: "Every open WebSocket link goes silent: nothing is read, writes are discarded. Clients notice only through their keepalive; new connections work."},
	{Action: "restart", Title: "Restart the router",
		Does: "Stops listening, drops every connection and closes the router, then starts it again on the same address with the same realms and data."},
	{Action: "withhold", Title: "Withhold a realm", Realm: true,
		Does: "Closes the realm's sessions (GOODBYE wamp.close.system_shutdown) and stops its services; joins get ABORT wamp.error.no_such_realm until released."},
	{Action: "release", Title: "Release a realm", Realm: true,
		Does: "Puts a withheld realm back with its services; joins work again."},
	{Action: "refuse-writes", Title: "Refuse writes", Realm: true, Modes: []string{"storage_full", "storage_overusage"},
		Does: "The realm's data backend refuses appends with sys.dataservice.error.storage_full (or storage_overusage) and drops published rows."},
	{Action: "accept-writes", Title: "Accept writes", Realm: true,
		Does: "The realm's data backend stores writes again."},
	{Action: "auth-outage", Title: "Authenticator outage", Modes: outageModes,
		Does: "Every join is refused with wamp.error.authentication_failed, valid credentials included, as the production router does while its authenticator or database cannot verify them. Joined sessions stay: drop connections to make clients join again."},
	{Action: "end-auth-outage", Title: "End the outage",
		Does: "Valid credentials are admitted again."},
}

// outageModes are the lengths an authenticator outage can be given.
var outageModes = []string{"30s", "2m", "10m", "until-ended"}

// faultView is a fault button as the page offers it now.
type faultView struct {
	faultSpec
	Choices []string // the realms it can act on
	Cannot  string   // why it cannot act now, "" when it can
}

type faultsView struct {
	Faults   []faultView
	Realms   []string
	Withheld []string
	Refusing []string
	Outage   string // "" when no authenticator outage lasts, else until when
	Sessions int
	Actions  []Action
	ReadOnly string
	Done     *Action // the action just done, on its answer page
}

func (c *Console) faultsView() faultsView {
	v := faultsView{Withheld: c.cfg.Router.Withheld(), Refusing: c.refusing(),
		Sessions: len(c.cfg.Router.Sessions()), Actions: c.Actions()}
	for _, rt := range c.realmsOf() {
		v.Realms = append(v.Realms, rt.Realm)
	}
	if on, until := c.cfg.Router.AuthOutage(); on {
		v.Outage = "until ended"
		if !until.IsZero() {
			v.Outage = "until " + until.UTC().Format(time.RFC3339)
		}
	}
	if !c.cfg.Write {
		v.ReadOnly = readOnlyText
	}
	for _, spec := range faultSpecs {
		fv := faultView{faultSpec: spec}
		switch spec.Action {
		case "drop", "freeze":
			if v.Sessions == 0 {
				fv.Cannot = "No session is joined: nothing to " + spec.Action + "."
			}
		case "withhold":
			fv.Choices = without(v.Realms, v.Withheld)
			if len(v.Realms) > 0 && len(fv.Choices) == 0 {
				fv.Cannot = "Every realm is withheld already."
			}
		case "release":
			fv.Choices = v.Withheld
			if len(fv.Choices) == 0 {
				fv.Cannot = "No realm is withheld: nothing to release."
			}
		case "refuse-writes":
			fv.Choices = v.Realms
		case "accept-writes":
			fv.Choices = v.Refusing
			if len(fv.Choices) == 0 {
				fv.Cannot = "Every realm accepts writes."
			}
		case "end-auth-outage":
			if v.Outage == "" {
				fv.Cannot = "No authenticator outage lasts."
			}
		}
		if spec.Realm && len(v.Realms) == 0 {
			fv.Cannot = "No realm: nothing is installed."
		}
		v.Faults = append(v.Faults, fv)
	}
	return v
}

// without returns the elements of all that are not in drop, in order.
func without(all, drop []string) []string {
	var out []string
	for _, s := range all {
		if !slices.Contains(drop, s) {
			out = append(out, s)
		}
	}
	return out
}

// refusal says why a realm fault cannot act on realm, "" when it can.
func (c *Console) refusal(action, realm string) string {
	withheld := slices.Contains(c.cfg.Router.Withheld(), realm)
	switch {
	case action == "release" && !withheld:
		return "realm " + realm + " is not withheld"
	case action == "withhold" && withheld:
		return "realm " + realm + " is withheld already"
	case action == "accept-writes" && !slices.Contains(c.refusing(), realm):
		return "realm " + realm + " accepts writes already"
	case action == "end-auth-outage":
		if on, _ := c.cfg.Router.AuthOutage(); !on {
			return "no authenticator outage lasts"
		}
	}
	return ""
}

func (c *Console) faults(w http.ResponseWriter, r *http.Request) {
	v := c.faultsView()
	if r.URL.Query().Get("done") == "1" && len(v.Actions) > 0 {
		v.Done = &v.Actions[0]
	}
	c.render(w, "faults", "Faults", "/faults", v)
}

func (c *Console) fault(w http.ResponseWriter, r *http.Request) {
	if !c.writable(w, r) {
		return
	}
	action := r.PathValue("action")
	i := slices.IndexFunc(faultSpecs, func(f faultSpec) bool { return f.Action == action })
	if i < 0 {
		c.fail(w, r, http.StatusNotFound, "There is no fault "+action+".")
		return
	}
	spec := faultSpecs[i]
	realm, mode := r.FormValue("realm"), r.FormValue("mode")
	if spec.Realm {
		if _, ok := c.realmNamed(realm); !ok {
			c.fail(w, r, http.StatusBadRequest, fmt.Sprintf("%s: there is no realm %q.", spec.Title, realm))
			return
		}
	}
	if action == "refuse-writes" && mode == "accept" {
		action = "accept-writes" // the earlier form of accept-writes
	}
	if why := c.refusal(action, realm); why != "" {
		c.fail(w, r, http.StatusConflict, fmt.Sprintf("%s: %s.", spec.Title, why))
		return
	}
	if spec.Modes != nil && action != "accept-writes" && !slices.Contains(spec.Modes, mode) {
		c.fail(w, r, http.StatusBadRequest, fmt.Sprintf("%s: mode %q is not one of %v.", spec.Title, mode, spec.Modes))
		return
	}
	switch action {
	case "drop", "restart":
		// The fault closes this very connection: answer first.
		what := spec.Title
		v := c.faultsView()
		v.Done = &Action{Time: c.cfg.Clock.Now(), What: what, Result: "under way; this page's own connection closes too"}
		w.Header().Set("Connection", "close")
		c.render(w, "faults", spec.Title, "/faults", v)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		c.act(action, realm, mode)
		return
	}
	c.act(action, realm, mode)
	// Post/redirect/get: reloading the answer does not repeat the fault.
	http.Redirect(w, r, "/faults?done=1", http.StatusSeeOther)
}

// act does a fault and logs it.
func (c *Console) act(action, realm, mode string) {
	rt := c.cfg.Router
	var what, result string
	switch action {
	case "drop":
		n := len(rt.Sessions())
		rt.DropConnections()
		what, result = "drop connections", fmt.Sprintf("dropped every connection (%d sessions were joined)", n)
	case "freeze":
		n := len(rt.Sessions())
		rt.FreezeConnections()
		what, result = "freeze links", fmt.Sprintf("froze every open WebSocket link (%d sessions were joined)", n)
	case "restart":
		what = "restart the router"
		if err := rt.Restart(); err != nil {
			result = "failed: " + err.Error()
		} else {
			result = "the router is up again on the same address"
		}
	case "withhold":
		rt.WithholdRealm(realm)
		what, result = "withhold realm "+realm, "the realm is out of the router; joins get wamp.error.no_such_realm"
	case "release":
		rt.ReleaseRealm(realm)
		what, result = "release realm "+realm, "the realm is back with its services"
	case "refuse-writes":
		c.cfg.RefuseWrites(realm, mode)
		what = "refuse writes of realm " + realm + ": " + mode
		result = "appends are refused with sys.dataservice.error." + mode + ", publications dropped"
	case "accept-writes":
		c.cfg.RefuseWrites(realm, "accept")
		what, result = "accept writes of realm "+realm, "writes are stored again"
	case "auth-outage":
		d, _ := time.ParseDuration(mode) // until-ended: 0
		rt.StartAuthOutage(d)
		what, result = "authenticator outage: "+mode, "every join is refused with wamp.error.authentication_failed until ended"
		if d > 0 {
			result = "every join is refused with wamp.error.authentication_failed for " + mode
		}
	case "end-auth-outage":
		rt.EndAuthOutage()
		what, result = "end the authenticator outage", "valid credentials are admitted again"
	}
	c.logAction(what, result)
}
