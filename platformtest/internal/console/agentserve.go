// This file finds which devices serve a topic tool: a device serves it
// while a session holds the registration of its procedure
// <SWARM>.<device_key>.<APP>.<STAGE>.<topic>, which the platform's own
// session on the realm looks up (wamp.registration.lookup), as the
// router would route a call. A tool on more devices than the Agents page
// lists opens on a device by key (toolPick).

package console

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// lookupTimeout bounds the registration lookups of one page.
const lookupTimeout = 5 * time.Second

// toolProcedure is the procedure a topic tool calls on a device.
func toolProcedure(ri realm.Info, deviceKey int, topic string) string {
	return fmt.Sprintf("%d.%d.%d.%s.%s", ri.Swarm, deviceKey, ri.App, ri.Stage, topic)
}

// registered reports whether a session of realmName holds procedure. An
// error says the lookup could not be made (the realm is not in the
// router: withheld, down).
func (c *Console) registered(ctx context.Context, realmName, procedure string) (bool, error) {
	h := c.cfg.Router.Host(realmName)
	if h == nil || h.Session == nil {
		return false, fmt.Errorf("realm %s is not in the router now", realmName)
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	res, err := h.Session.Call(ctx, string(wamp.MetaProcRegLookup), nil, wamp.List{procedure}, nil, nil)
	if err != nil {
		return false, fmt.Errorf("look up %s: %w", procedure, err)
	}
	if len(res.Arguments) == 0 {
		return false, nil
	}
	_, ok := wamp.AsID(res.Arguments[0])
	return ok, nil
}

// toolPick opens the form of a tool on the device whose key ?key= gives.
func (c *Console) toolPick(w http.ResponseWriter, r *http.Request) {
	given := strings.TrimSpace(r.URL.Query().Get("key"))
	key, err := strconv.Atoi(given)
	if err != nil || key <= 0 {
		c.fail(w, r, http.StatusBadRequest, fmt.Sprintf("Field key: %q is not a device key.", given))
		return
	}
	http.Redirect(w, r, fmt.Sprintf("/agents/%s/%d/%s/%s", url.PathEscape(r.PathValue("realm")), key,
		url.PathEscape(r.PathValue("agent")), url.PathEscape(r.PathValue("tool"))), http.StatusSeeOther)
}
