package console_test

import (
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

// states starts a client of in and returns its state changes.
func states(t *testing.T, in *platformtest.Installation) (*client.Client, <-chan client.State) {
	t.Helper()
	ch := make(chan client.State, 64)
	c := clienttest.Start(t, in, client.WithLogger(slog.New(slog.DiscardHandler)), client.WithStateHandler(func(s client.State) {
		select {
		case ch <- s:
		default:
		}
	}))
	return c, ch
}

// awaitStates waits for the states in order (others may come between).
func awaitStates(t *testing.T, ch <-chan client.State, want ...client.State) {
	t.Helper()
	ctx := testCtx(t)
	for _, s := range want {
		for got := range ch {
			if got == s {
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("state %v did not come", s)
		}
	}
}

// TestReadOnly checks that without Write no fault or tool call is done.
func TestReadOnly(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	_, ch := states(t, w.in1)
	awaitStates(t, ch, client.StateConnected)
	for _, path := range []string{"/faults/drop", "/faults/restart", "/agents/" + w.realm + "/1/assistant/read_temperature"} {
		code, body := w.post(t, path, url.Values{"p.sensor": {"s1"}})
		if code != http.StatusForbidden || !strings.Contains(body, "-console-write") {
			t.Errorf("POST %s: %d, want 403 naming -console-write:\n%s", path, code, body)
		}
	}
	if n := len(w.p.Sessions()); n != 1 {
		t.Errorf("%d sessions, want the client's 1", n)
	}
	for _, path := range []string{"/faults", "/agents/" + w.realm + "/1/assistant/read_temperature"} {
		if _, body := w.get(t, path); !strings.Contains(body, " disabled>") || !strings.Contains(body, "-console-write") {
			t.Errorf("%s: the buttons are not disabled", path)
		}
	}
}

// TestFaultDrop drops the connections from the console and sees the client
// reconnect.
func TestFaultDrop(t *testing.T) {
	w := newWorld(t, platformtest.Console{Write: true})
	_, ch := states(t, w.in1)
	awaitStates(t, ch, client.StateConnected)
	before := w.p.Sessions()[0].ID
	code, body := w.post(t, "/faults/drop", url.Values{})
	if code != http.StatusOK || !strings.Contains(body, "under way") {
		t.Fatalf("drop: %d\n%s", code, body)
	}
	awaitStates(t, ch, client.StateReconnecting, client.StateConnected)
	if err := w.p.WaitSessions(testCtx(t), w.realm, 1); err != nil {
		t.Fatal(err)
	}
	if after := w.p.Sessions()[0].ID; after == before {
		t.Errorf("still session %d", after)
	}
	_, body = w.get(t, "/faults")
	if !strings.Contains(body, "dropped every connection (1 sessions were joined)") {
		t.Errorf("the action log lacks the drop:\n%s", body)
	}
}

// TestFaultRestart restarts the router from the console.
func TestFaultRestart(t *testing.T) {
	leakcheck.Check(t)
	w := newWorld(t, platformtest.Console{Write: true})
	_, ch := states(t, w.in1)
	awaitStates(t, ch, client.StateConnected)
	if code, body := w.post(t, "/faults/restart", url.Values{}); code != http.StatusOK {
		t.Fatalf("restart: %d\n%s", code, body)
	}
	awaitStates(t, ch, client.StateReconnecting, client.StateConnected)
	_, body := w.get(t, "/")
	if !strings.Contains(body, "the router is up again on the same address") {
		t.Errorf("the overview lacks the restart:\n%s", body)
	}
}

// TestFaultRealm withholds and releases a realm and refuses its writes.
func TestFaultRealm(t *testing.T) {
	w := newWorld(t, platformtest.Console{Write: true})
	realm := url.Values{"realm": {w.realm}}
	code, body := w.post(t, "/faults/withhold", realm)
	if code != http.StatusOK || !strings.Contains(body, "withhold realm "+w.realm) {
		t.Fatalf("withhold: %d\n%s", code, body)
	}
	_, body = w.get(t, "/fleet")
	if !strings.Contains(body, "withheld") {
		t.Error("the fleet does not show the withheld realm")
	}
	if _, body = w.post(t, "/faults/release", realm); !strings.Contains(body, "the realm is back") {
		t.Errorf("release:\n%s", body)
	}
	realm.Set("mode", "storage_full")
	if _, body = w.post(t, "/faults/refuse-writes", realm); !strings.Contains(body, "sys.dataservice.error.storage_full") {
		t.Errorf("refuse writes:\n%s", body)
	}
	ctx := testCtx(t)
	c := clienttest.Start(t, w.in1)
	if _, err := c.AppendToTable(ctx, "readings", map[string]any{"tsp": t0, "sensor": "s1", "celsius": 1}); err == nil ||
		!strings.Contains(err.Error(), "storage_full") {
		t.Errorf("append while refused: %v", err)
	}
	_, body = w.get(t, "/")
	if !strings.Contains(body, "Realms refusing writes: <code>"+w.realm) {
		t.Errorf("the overview does not show the refusal:\n%s", body)
	}
	realm.Set("mode", "accept")
	w.post(t, "/faults/refuse-writes", realm)
	if _, err := c.AppendToTable(ctx, "readings", map[string]any{"tsp": t0, "sensor": "s7", "celsius": 1}); err != nil {
		t.Errorf("append once accepted: %v", err)
	}
	for _, bad := range []url.Values{{"realm": {"realm-9-9-dev"}}, {"realm": {w.realm}, "mode": {"maybe"}}} {
		if code, _ := w.post(t, "/faults/refuse-writes", bad); code != http.StatusBadRequest {
			t.Errorf("refuse writes %v: %d, want 400", bad, code)
		}
	}
	if code, _ := w.post(t, "/faults/explode", url.Values{}); code != http.StatusNotFound {
		t.Errorf("an unknown fault: %d, want 404", code)
	}
	_, body = w.get(t, "/faults")
	var log []string
	for _, r := range tableCells(t, body, "actions") {
		log = append(log, r[1])
	}
	want := []string{"accept writes of realm " + w.realm, "refuse writes of realm " + w.realm + ": storage_full",
		"release realm " + w.realm, "withhold realm " + w.realm}
	if !slices.Equal(log, want) {
		t.Errorf("action log %q, want %q", log, want)
	}
}

// faultForm returns the form of a fault on the faults page: whether its
// button is enabled, its realm choices and the reason it cannot act.
func faultForm(t *testing.T, page, action string) (enabled bool, realms []string, cannot string) {
	t.Helper()
	i := strings.Index(page, `id="fault-`+action+`"`)
	if i < 0 {
		t.Fatalf("no fault %s on the page:\n%s", action, page)
	}
	form := page[i : i+strings.Index(page[i:], "</form>")]
	for _, m := range optionRe.FindAllStringSubmatch(form, -1) {
		realms = append(realms, m[1])
	}
	if m := cannotRe.FindStringSubmatch(form); m != nil {
		cannot = m[1]
	}
	return !strings.Contains(form, " disabled>"), realms, cannot
}

var (
	optionRe = regexp.MustCompile(`<option>(realm-[^<]*)</option>`)
	cannotRe = regexp.MustCompile(`<p class="muted cannot">([^<]*)</p>`)
)

// TestFaultButtonsCanAct: a fault button is enabled only when it can act,
// with only the realms it can act on; a fault that cannot act is refused.
func TestFaultButtonsCanAct(t *testing.T) {
	w := newWorld(t, platformtest.Console{Write: true})
	check := func(action string, wantEnabled bool, wantRealms []string, wantCannot string) {
		t.Helper()
		_, page := w.get(t, "/faults")
		enabled, realms, cannot := faultForm(t, page, action)
		if enabled != wantEnabled || !slices.Equal(realms, wantRealms) || !strings.Contains(cannot, wantCannot) {
			t.Errorf("%s: enabled %v, realms %q, cannot %q; want %v, %q, %q", action, enabled, realms, cannot, wantEnabled, wantRealms, wantCannot)
		}
	}
	check("drop", false, nil, "No session is joined")
	check("freeze", false, nil, "No session is joined")
	check("restart", true, nil, "")
	check("withhold", true, []string{w.realm}, "")
	check("release", false, nil, "No realm is withheld")
	check("accept-writes", false, nil, "Every realm accepts writes")
	realm := url.Values{"realm": {w.realm}}
	for _, action := range []string{"release", "accept-writes"} {
		if code, body := w.post(t, "/faults/"+action, realm); code != http.StatusConflict {
			t.Errorf("%s of a realm that is not withheld or refusing: %d, want 409\n%s", action, code, body)
		}
	}

	_, ch := states(t, w.in1)
	awaitStates(t, ch, client.StateConnected)
	check("drop", true, nil, "")
	w.post(t, "/faults/withhold", realm)
	check("release", true, []string{w.realm}, "")
	check("withhold", false, nil, "Every realm is withheld already")
	if code, _ := w.post(t, "/faults/withhold", realm); code != http.StatusConflict {
		t.Errorf("withholding a withheld realm: %d, want 409", code)
	}
	w.post(t, "/faults/refuse-writes", url.Values{"realm": {w.realm}, "mode": {"storage_full"}})
	check("accept-writes", true, []string{w.realm}, "")
	w.post(t, "/faults/accept-writes", realm)
	check("accept-writes", false, nil, "Every realm accepts writes")
}

// TestFaultAuthOutage starts an authenticator outage from the console,
// sees a dropped client refused and retrying, ends the outage and sees it
// connected again.
func TestFaultAuthOutage(t *testing.T) {
	w := newWorld(t, platformtest.Console{Write: true})
	_, ch := states(t, w.in1)
	awaitStates(t, ch, client.StateConnected)
	_, page := w.get(t, "/faults")
	if enabled, _, cannot := faultForm(t, page, "end-auth-outage"); enabled || !strings.Contains(cannot, "No authenticator outage lasts") {
		t.Errorf("end-auth-outage without an outage: enabled %v, cannot %q", enabled, cannot)
	}
	if code, _ := w.post(t, "/faults/end-auth-outage", url.Values{}); code != http.StatusConflict {
		t.Errorf("ending no outage: %d, want 409", code)
	}
	if code, _ := w.post(t, "/faults/auth-outage", url.Values{"mode": {"forever"}}); code != http.StatusBadRequest {
		t.Errorf("an outage of a bad length: %d, want 400", code)
	}
	code, body := w.post(t, "/faults/auth-outage", url.Values{"mode": {"until-ended"}})
	if code != http.StatusOK || !strings.Contains(body, "Authenticator outage until ended") {
		t.Fatalf("auth-outage: %d\n%s", code, body)
	}
	w.post(t, "/faults/drop", url.Values{})
	awaitStates(t, ch, client.StateReconnecting, client.StateRefusedRetrying)
	if code, body = w.post(t, "/faults/end-auth-outage", url.Values{}); code != http.StatusOK || !strings.Contains(body, "valid credentials are admitted again") {
		t.Fatalf("end-auth-outage: %d\n%s", code, body)
	}
	awaitStates(t, ch, client.StateConnected)
	outage := 0
	for _, a := range w.p.AuthLog() {
		if a.Reason == "auth_outage" {
			outage++
		}
	}
	if outage == 0 {
		t.Error("no join was refused for the outage")
	}
}
