package all_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

// fixture is the app of testdata/all installed on a device, with the app
// weather it consumes installed on another device of the project.
type fixture struct {
	p       *platformtest.Platform
	inst    *platformtest.Installation // the app of testdata/all
	station *platformtest.Installation // weather
	c       *client.Client
	ctx     context.Context
}

// template reads a template of the testdata the package was generated from.
func template(t *testing.T, app, file string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", app, ".ironflock", file))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	leakcheck.Check(t)
	p := platformtest.New(t)
	pr := p.AddProject("plant")
	factory := p.AddAppWithAgents("factory", template(t, "all", "data-template.yml"), template(t, "all", "ai-template.yml"))
	weather := p.AddApp("weather", template(t, "weather", "data-template.yml"))
	f := &fixture{p: p,
		inst:    p.Install(pr.AddDevice("press-1"), factory, platformtest.Dev),
		station: p.Install(pr.AddDevice("station-1"), weather, platformtest.Dev),
	}
	p.Grant(pr, factory, "weather")
	f.c = clienttest.Start(t, f.inst)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	f.ctx = ctx
	return f
}

// at is a time of the test day.
func at(h, m int) time.Time { return time.Date(2026, 3, 2, h, m, 0, 0, time.UTC) }
