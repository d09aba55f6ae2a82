package platformtest

import (
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// TestReadsShareTheRegistry: the accessors that only read (an
// installation's credential, states and release, a device or app by key,
// the templates, the grants, a location) answer while another reader
// holds the registry, as the router's authentications do: they take its lock shared. flockd writes
// its environment file with one Credentials per installation while a
// restarted fleet joins; a change round for each (the lock held
// exclusively) held every join's lookup waiting. Were one of them to take
// the lock exclusively again, this test would wait for the held reader
// forever (the test binary's -timeout names it).
func TestReadsShareTheRegistry(t *testing.T) {
	f := newFixture(t)
	held, release := make(chan struct{}), make(chan struct{})
	go f.p.reg.View(func(*registry.State) {
		close(held)
		<-release
	})
	<-held
	defer close(release)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if id, secret := f.in1.Credentials(); id == "" || secret == "" {
			t.Error("Credentials returned an empty credential")
		}
		_ = f.in1.TargetState()
		_ = f.in1.CurrentState()
		_ = f.in1.ReleaseKey()
		_ = f.in1.Inherited()
		if f.p.DeviceByKey(42) == nil || f.p.AppByKey(26) == nil || f.p.InstallationOf(42, 26, Dev) == nil {
			t.Error("a lookup by key found nothing")
		}
		_ = f.app.DataTemplate()
		_ = f.app.AgentTemplate()
		_ = f.p.realmsOfApp("interop")
		_ = f.p.Grants()
		_, _ = f.d1.Location()
	}()
	<-done
}
