// This file tests the codes of AccessError, each produced by a situation
// the platform really creates (no injected refusal), and the guards that
// answer PRIVATE_TABLE and SECRET_COLUMN before anything is sent.

package crossapp_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/crossapp"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// TestRefusalsOfTheDiscovery: NO_GRANT, UNKNOWN_APP and
// PROVIDER_NOT_INSTALLED as the platform's discovery answers them, matched
// by code and keeping the platform's refusal.
func TestRefusalsOfTheDiscovery(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.AddApp("lonely", weatherTemplate) // installed nowhere
	ctx := ctxT(t)
	_, dash := consumer(t, f.dashIn)
	_, all := consumer(t, f.allIn)

	_, err := dash.Connect(ctx, "weather")
	wantCode(t, "Connect without a grant", err, crossapp.CodeNoGrant)
	if !errors.Is(err, &crossapp.AccessError{Code: crossapp.CodeNoGrant}) || errors.Is(err, &crossapp.AccessError{Code: crossapp.CodeUnknownApp}) {
		t.Errorf("errors.Is by code: %v", err)
	}
	if client.WampURI(err) != wire.ErrAppAccessNoGrant {
		t.Errorf("the platform's refusal is lost: %v", err)
	}
	var oe *client.OpError
	if !errors.As(err, &oe) || oe.Op != "crossapp.Connect" || oe.URI != "weather" {
		t.Errorf("operation error %+v", oe)
	}
	if want := `ironflock: crossapp.Connect "weather": NO_GRANT: sys.appaccess.error.no_grant: "`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("message %q, want the prefix %q", err, want)
	}
	_, err = all.List(ctx)
	wantCode(t, "List without the wildcard grant", err, crossapp.CodeNoGrant)
	_, err = all.ConnectAll(ctx)
	wantCode(t, "ConnectAll without the wildcard grant", err, crossapp.CodeNoGrant)

	f.p.Grant(f.pr, f.all, platformtest.Wildcard)
	f.p.Grant(f.pr, f.dash, "weather")
	_, err = all.Connect(ctx, "nosuch")
	wantCode(t, "Connect to an unknown app", err, crossapp.CodeUnknownApp)
	_, err = all.Connect(ctx, "lonely")
	wantCode(t, "Connect to an app without a data backend", err, crossapp.CodeProviderNotInstalled)
	if client.WampURI(err) != wire.ErrAppAccessNotInstalled {
		t.Errorf("the platform's refusal is lost: %v", err)
	}
	_, err = dash.Connect(ctx, "weather", crossapp.Stage(client.Prod))
	wantCode(t, "Connect in a stage without a data backend", err, crossapp.CodeProviderNotInstalled)
	if !strings.Contains(err.Error(), "PROD") {
		t.Errorf("message does not name the stage: %v", err)
	}
	_, err = dash.Connect(ctx, "weather", crossapp.Stage("staging"))
	if !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("Connect in stage staging: %v", err)
	}
	if _, err := dash.Connect(ctx, " "); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("Connect to a blank name: %v", err)
	}
	if got := countSessions(f.p, f.station.Realm()); got != 0 {
		t.Errorf("%d sessions on the provider's realm after refusals", got)
	}
}

// TestLegacyCredentialNotAuthorized: the legacy credential joins the
// consumer's own realm, and the discovery answers, but the provider's
// realm refuses it: NOT_AUTHORIZED at once, not after the connect timeout.
func TestLegacyCredentialNotAuthorized(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	c := start(t, f.dashIn.LegacyEnv())
	apps := crossapp.New(c, crossapp.WithConnectTimeout(10*time.Minute))
	_, err := apps.Connect(ctxT(t), "weather")
	wantCode(t, "Connect with the legacy credential", err, crossapp.CodeNotAuthorized)
	if client.WampURI(err) != wire.ErrAuthenticationFailed {
		t.Errorf("the platform's refusal is lost: %v", err)
	}
	wantRefused(t, f.p, f.station.Realm(), "legacy_foreign")
}

// TestGuards: reads the catalog does not allow are refused before any
// traffic: PRIVATE_TABLE for tables the provider does not share and for
// series of a transform, SECRET_COLUMN for queries using a secret column
// anywhere.
func TestGuards(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	_, apps := consumer(t, f.dashIn)
	ctx := ctxT(t)
	w, err := apps.Connect(ctx, "weather")
	if err != nil {
		t.Fatal(err)
	}
	f.p.ClearRecorded()
	history := func(table string, q *client.Query) func() error {
		return func() error { _, err := w.GetHistory(ctx, table, q); return err }
	}
	series := func(table string, q client.SeriesQuery) func() error {
		return func() error { _, err := w.GetSeriesHistory(ctx, table, q); return err }
	}
	metric := func(ref string) []client.Metric { return []client.Metric{{Ref: ref, Method: client.COUNT}} }
	since := client.TimeRange{Start: t0}
	for _, tc := range []struct {
		what string
		call func() error
		code string
	}{
		{"history of a private table", history("private_stats", nil), crossapp.CodePrivateTable},
		{"history of error-logs", history(wire.ErrorLogsTable, nil), crossapp.CodePrivateTable},
		{"history of an unknown table", history("nosuch", nil), crossapp.CodePrivateTable},
		{"series of a transform", series("hourly", client.SeriesQuery{Metrics: metric("mean"), Limit: 1, TimeRange: since}), crossapp.CodePrivateTable},
		{"series of a private table", series("private_stats", client.SeriesQuery{Metrics: metric("n"), Limit: 1, TimeRange: since}), crossapp.CodePrivateTable},
		{"subscription to a private table", func() error {
			_, err := w.SubscribeToTable(ctx, "private_stats", func(context.Context, *client.TableEvent) {})
			return err
		}, crossapp.CodePrivateTable},
		{"filter on a secret column", history("readings", &client.Query{FilterAnd: []client.Filter{client.Where("api_key", "=", "k")}}), crossapp.CodeSecretColumn},
		{"filter on a secret column in a group", history("readings", &client.Query{FilterAnd: []client.Filter{
			client.Where("temp", ">", 1), client.Or(client.Where("station", "=", "n"), client.And(client.IsNotNull("API_KEY")))}}), crossapp.CodeSecretColumn},
		{"selecting a secret column", history("readings", &client.Query{Columns: []string{"temp", "api_key"}}), crossapp.CodeSecretColumn},
		{"a path into a secret column", history("readings", &client.Query{Columns: []string{"temp"}, ColumnPaths: []string{"api_key.x"}}), crossapp.CodeSecretColumn},
		{"aggregating a secret column", series("readings", client.SeriesQuery{Metrics: metric("api_key"), Limit: 1, TimeRange: since}), crossapp.CodeSecretColumn},
		{"grouping by a secret column", series("readings", client.SeriesQuery{Metrics: metric("temp"), GroupBy: []string{"api_key"}, Limit: 1, TimeRange: since}), crossapp.CodeSecretColumn},
		{"series filtered on a secret column", series("readings", client.SeriesQuery{Metrics: metric("temp"), Limit: 1, TimeRange: since,
			FilterAnd: []client.Filter{client.Or(client.Where("api_key", "LIKE", "k%"))}}), crossapp.CodeSecretColumn},
	} {
		err := tc.call()
		wantCode(t, tc.what, err, tc.code)
		if client.WampURI(err) != "" {
			t.Errorf("%s: the refusal came from the platform: %v", tc.what, err)
		}
	}
	if rec := f.p.Recorded(); len(rec) != 0 {
		t.Errorf("the guards let traffic through: %+v", rec)
	}
	// What the guards let through reaches the platform.
	if err := history("readings", &client.Query{Columns: []string{"temp"}, FilterAnd: []client.Filter{client.Where("station", "=", "north")}})(); err != nil {
		t.Errorf("a query without secret columns: %v", err)
	}
	if _, err := w.GetHistory(ctx, "hourly", nil); err != nil {
		t.Errorf("history of a transform: %v", err)
	}
}
