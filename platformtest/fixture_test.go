package platformtest

import (
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// fixture is a platform with one project, two devices and one app
// installed on both in DEV.
type fixture struct {
	p      *Platform
	pr     *Project
	d1, d2 *Device
	app    *App
	in1    *Installation
	in2    *Installation
}

func newFixture(t *testing.T, opts ...Option) *fixture {
	t.Helper()
	p := New(t, opts...)
	pr := p.AddProject("plant", Key(2))
	d1 := pr.AddDevice("dev-1", Key(42), Serial("06a0bf96-a539-4d6a-8471-ac7adc67616e"))
	d2 := pr.AddDevice("dev-2", Key(43))
	app := p.AddApp("interop", "", Key(26))
	return &fixture{p: p, pr: pr, d1: d1, d2: d2, app: app, in1: p.Install(d1, app, Dev), in2: p.Install(d2, app, Dev)}
}

// backends are this package's options of each backend for worldtest's
// conformance list.
var backends = worldtest.Backends[Option]{
	DataDir:  WithDataDir,
	Postgres: func(url string) Option { return WithPostgres(url, PostgresScratch()) },
}
