package management_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/management"
	"github.com/flockgo/ironflock/platformtest"
)

// TestGroupPropagationStory: a device created over the API joins a group,
// inherits the group's app, and the app's client connects with the SDK;
// the device leaves the group, the app is gone and a fresh client can no
// longer join: the router refuses it and the auth log says why.
func TestGroupPropagationStory(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	ctx := testCtx(t)

	dev := must(t, res(f.alice.CreateDevices(ctx, 1, management.NewDevice{Name: "press"})))[0]
	app := must(t, res(f.alice.CreateApp(ctx, management.NewApp{Name: "telemetry"})))
	rel := must(t, res(f.alice.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "1.0.0",
		DataTemplate: "data:\n  tables:\n    - tablename: readings\n      columns:\n        - {id: tsp, name: Time, dataType: timestamp}\n"})))
	if rel.Status != management.StatusReady {
		t.Fatalf("release %+v", rel)
	}
	must(t, res(f.alice.InstallGroupApp(ctx, 1, f.line.Key(), management.GroupInstall{AppKey: app.AppKey, Stage: management.Dev})))

	// The device joins the group and inherits the app.
	must(t, res(f.alice.AddDeviceToGroup(ctx, 1, f.line.Key(), dev.DeviceKey)))
	apps := must(t, res(f.alice.ListDeviceApps(ctx, dev.DeviceKey)))
	if len(apps) != 1 || apps[0].AppKey != app.AppKey || !apps[0].InheritFromGroup || apps[0].ReleaseKey != rel.ReleaseKey {
		t.Fatalf("device apps %+v", apps)
	}

	// The installation's environment connects an SDK client.
	in := f.p.InstallationOf(dev.DeviceKey, app.AppKey, platformtest.Dev)
	if in == nil {
		t.Fatal("no installation behind the inherited app")
	}
	env := in.Env()
	if env[wire.EnvSerialNumber] != dev.SerialNumber {
		t.Errorf("env serial %s, device %s", env[wire.EnvSerialNumber], dev.SerialNumber)
	}
	c, err := client.New(client.WithEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatalf("start: %v", err)
	}
	if d := must(t, res(f.vic.GetDevice(ctx, dev.DeviceKey))); d.Status != management.DeviceConnected {
		t.Errorf("status while joined: %s", d.Status)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}

	// The device leaves the group: the app is gone...
	if err := f.alice.RemoveDeviceFromGroup(ctx, 1, f.line.Key(), dev.DeviceKey); err != nil {
		t.Fatal(err)
	}
	if apps := must(t, res(f.alice.ListDeviceApps(ctx, dev.DeviceKey))); len(apps) != 0 {
		t.Fatalf("device apps after leaving %+v", apps)
	}
	// ...and a fresh client cannot join: Start keeps retrying the refused
	// credential until its context ends, which this test does once the
	// auth log shows a refusal.
	authID := env[wire.EnvAppAuthID]
	refusals := func() []platformtest.AuthAttempt {
		var out []platformtest.AuthAttempt
		for _, at := range f.p.AuthLog() {
			if at.AuthID == authID && !at.Admitted {
				out = append(out, at)
			}
		}
		return out
	}
	c2, err := client.New(client.WithEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	startCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		for len(refusals()) == 0 && startCtx.Err() == nil {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	err = c2.Start(startCtx)
	if err == nil {
		t.Fatal("a client of the removed app joined")
	}
	if !errors.Is(err, context.Canceled) {
		t.Logf("start: %v", err)
	}
	_ = c2.Stop(ctx)
	got := refusals()
	if len(got) == 0 || got[0].Reason != "not_installed" || got[0].Realm != in.Realm() {
		t.Errorf("auth log refusals %+v", got)
	}
}
