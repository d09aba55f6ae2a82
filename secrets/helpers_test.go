// This file holds the fixture the tests of the package share: a fake
// platform whose app has secret columns, and a started client.

package secrets_test

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/secrets"
)

// vaultTemplate declares an entity table and a plain table with secret
// columns, and a table without one.
const vaultTemplate = `
data:
  tables:
    - tablename: credentials
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: state, name: State, dataType: string}
        - {id: level, name: Level, dataType: numeric}
        - {id: api_key, name: API key, dataType: string, secret: true}
    - tablename: tokens
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: token, name: Token, dataType: string, secret: true}
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temp, name: Temperature, dataType: numeric}
`

// credential is a row of the credentials table.
type credential struct {
	Tsp     time.Time     `json:"tsp"`
	Machine string        `json:"machine"`
	State   string        `json:"state,omitempty"`
	Level   float64       `json:"level,omitempty"`
	APIKey  secrets.Value `json:"api_key"`
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fixture is a platform with the vault app installed on one device, a
// started client of it and its secrets.Client.
type fixture struct {
	p  *platformtest.Platform
	in *platformtest.Installation
	c  *client.Client
	s  *secrets.Client
}

func newFixture(t *testing.T, popts []platformtest.Option, copts ...client.Option) *fixture {
	t.Helper()
	p := platformtest.New(t, popts...)
	app := p.AddApp("vault", vaultTemplate)
	in := p.Install(p.AddDevice("gateway"), app, platformtest.Dev)
	c := clienttest.Start(t, in, copts...)
	return &fixture{p: p, in: in, c: c, s: secrets.New(c)}
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// put appends a credential, failing the test on an error.
func (f *fixture) put(t *testing.T, c credential) {
	t.Helper()
	if _, err := f.c.AppendToTable(ctxT(t), "credentials", c); err != nil {
		t.Fatalf("append %s: %v", c.Machine, err)
	}
}

// callsTo returns the args of the recorded calls of uri.
func (f *fixture) callsTo(uri string) [][]any {
	var out [][]any
	for _, m := range f.p.Calls() {
		if m.URI == uri {
			out = append(out, m.Args)
		}
	}
	return out
}

// logBuffer is a slog handler's output, safe for concurrent writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// logger logs everything, debug included, to l.
func (l *logBuffer) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// column returns one column of rows.
func column(rows []client.Row, name string) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[name]
	}
	return out
}
