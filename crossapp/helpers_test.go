// This file holds what the scenario tests share: a project with a
// provider and two consumers, consumer clients, and collectors.

package crossapp_test

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/crossapp"
	"github.com/flockgo/ironflock/platformtest"
)

// weatherTemplate is the provider's data template: a shared table with a
// secret column, a private table and a shared transform.
const weatherTemplate = `
data:
  tables:
    - tablename: readings
      description: Temperature readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: station, name: Station, dataType: string}
        - {id: temp, name: Temperature, dataType: numeric}
        - {id: api_key, name: Key, dataType: string, secret: true}
    - tablename: private_stats
      private: true
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: n, dataType: bigint}
  transforms:
    - tablename: hourly
      sql: SELECT 1
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: mean, dataType: numeric}
`

// dashTemplate consumes weather; allTemplate consumes every app.
const (
	dashTemplate = `
data:
  tables:
    - tablename: notes
      columns:
        - {id: tsp, dataType: timestamp}
consumes:
  - app: Weather
`
	allTemplate = `
data:
  tables: []
consumes:
  - app: "*"
`
)

// t0 is the time of the first row the tests write.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// quiet and fast shrink every cadence of the clients.
var fast = []client.Option{
	client.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
	client.WithReconnectBackoff(10*time.Millisecond, 40*time.Millisecond),
	client.WithRestoreBackoff(20*time.Millisecond, 80*time.Millisecond),
	client.WithSessionWait(5 * time.Second),
}

// project is a project "plant" (key 2) with the provider weather (key 77,
// in DEV on device station), the consumer dash (key 26, consumes weather)
// and the consumer all (key 30, consumes "*"), both in DEV on device
// panel. No grant is given.
type project struct {
	p                      *platformtest.Platform
	pr                     *platformtest.Project
	weather, dash, all     *platformtest.App
	station, dashIn, allIn *platformtest.Installation
}

func newProject(t *testing.T) *project {
	t.Helper()
	p := platformtest.New(t)
	pr := p.AddProject("plant", platformtest.Key(2))
	f := &project{p: p, pr: pr}
	f.weather = p.AddApp("weather", weatherTemplate, platformtest.Key(77))
	f.dash = p.AddApp("dash", dashTemplate, platformtest.Key(26))
	f.all = p.AddApp("all", allTemplate, platformtest.Key(30))
	f.station = p.Install(pr.AddDevice("station", platformtest.Key(7)), f.weather, platformtest.Dev)
	panel := pr.AddDevice("panel", platformtest.Key(42))
	f.dashIn = p.Install(panel, f.dash, platformtest.Dev)
	f.allIn = p.Install(panel, f.all, platformtest.Dev)
	return f
}

// start returns a started client with env and the fast cadences; it stops
// when the test ends.
func start(t *testing.T, env map[string]string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(append(append([]client.Option{client.WithEnv(env)}, fast...), opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := c.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	})
	if err := c.Start(ctxT(t)); err != nil {
		t.Fatalf("Start: %v", err)
	}
	return c
}

// consumer returns a started client of inst and its Consumer.
func consumer(t *testing.T, inst *platformtest.Installation, opts ...crossapp.Option) (*client.Client, *crossapp.Consumer) {
	t.Helper()
	c := start(t, inst.Env())
	return c, crossapp.New(c, opts...)
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// reading is a row of the provider's readings table.
func reading(i int, temp float64) map[string]any {
	return map[string]any{"tsp": t0.Add(time.Duration(i) * time.Minute), "station": "north", "temp": temp, "api_key": "k-secret"}
}

// errorsSeen collects what OnError is told.
type errorsSeen chan error

func newErrorsSeen() errorsSeen { return make(errorsSeen, 16) }

func (e errorsSeen) option() crossapp.ConnectOption {
	return crossapp.OnError(func(err error) { e <- err })
}

// next returns the next error, failing the test when none comes while
// the test's context lasts.
func (e errorsSeen) next(t *testing.T) error {
	t.Helper()
	select {
	case err := <-e:
		return err
	case <-ctxT(t).Done():
		t.Fatal("OnError was not called")
		return nil
	}
}

// rows collects the rows of a table subscription.
type rows chan client.Row

func (r rows) handler(_ context.Context, ev *client.TableEvent) { r <- ev.Row }

func (r rows) next(t *testing.T) client.Row {
	t.Helper()
	select {
	case row := <-r:
		return row
	case <-ctxT(t).Done():
		t.Fatal("no row arrived")
		return nil
	}
}

// wantCode fails the test unless err carries an *AccessError with code.
func wantCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := crossapp.CodeOf(err); got != code {
		t.Fatalf("%s: code %q, want %q (err: %v)", what, got, code, err)
	}
}

// countCalls returns how many calls of uri the platform received.
func countCalls(p *platformtest.Platform, uri string) int {
	n := 0
	for _, m := range p.Calls() {
		if m.URI == uri {
			n++
		}
	}
	return n
}

// countSessions returns how many sessions are joined on realm.
func countSessions(p *platformtest.Platform, realm string) int {
	n := 0
	for _, s := range p.Sessions() {
		if s.Realm == realm {
			n++
		}
	}
	return n
}

// refusals returns the reasons of the platform's refused joins of realm,
// oldest first.
func refusals(p *platformtest.Platform, realm string) []string {
	var out []string
	for _, a := range p.AuthLog() {
		if a.Realm == realm && !a.Admitted {
			out = append(out, a.Reason)
		}
	}
	return out
}

// wantRefused checks that the platform refused a join of realm for reason,
// and for no other reason than that one or no_response: an attempt the
// client started meanwhile and cut off when it gave up (how soon it starts
// depends on the machine's speed).
func wantRefused(t *testing.T, p *platformtest.Platform, realm, reason string) {
	t.Helper()
	r := refusals(p, realm)
	ok := slices.Contains(r, reason)
	for _, got := range r {
		ok = ok && (got == reason || got == "no_response")
	}
	if !ok {
		t.Errorf("the platform's refusals on %s: %v, want %s (and no_response of an attempt cut off)", realm, r, reason)
	}
}
