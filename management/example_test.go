package management_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/flockgo/ironflock/management"
	"github.com/flockgo/ironflock/platformtest"
)

// examplePlatform starts a fake platform with project "plant" (swarm key
// 1), its group "line" (group key 1) and a user alice, admin of plant.
func examplePlatform() *platformtest.Platform {
	p, err := platformtest.Start()
	if err != nil {
		panic(err)
	}
	plant := p.AddProject("plant", platformtest.Key(1))
	plant.AddGroup("line")
	p.AddUser("alice", "alice-token", map[*platformtest.Project]string{plant: platformtest.RoleAdmin})
	return p
}

func ExampleNew() {
	p := examplePlatform()
	defer p.Close()
	ctx := context.Background()

	c := management.New(p.HTTPURL(), "alice-token")
	devices, err := c.CreateDevices(ctx, 1, management.NewDevice{Name: "press"}, management.NewDevice{Name: "lathe"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(devices), "devices created")
	list, err := c.ListDevices(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range list {
		fmt.Println(d.DeviceKey, d.Name, d.Status)
	}
	// Output:
	// 2 devices created
	// 1 press DISCONNECTED
	// 2 lathe DISCONNECTED
}

func ExampleClient_CreateRelease() {
	p := examplePlatform()
	defer p.Close()
	ctx := context.Background()
	c := management.New(p.HTTPURL(), "alice-token")

	app, err := c.CreateApp(ctx, management.NewApp{Name: "telemetry"})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The call waits for the build by default; the fake builds at once
	// unless platformtest.WithBuildDuration says otherwise.
	r, err := c.CreateRelease(ctx, app.AppKey, management.NewRelease{
		Version:      "1.0.0",
		DataTemplate: "data:\n  tables:\n    - tablename: readings\n      columns:\n        - {id: tsp, name: Time, dataType: timestamp}\n",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Version, r.Status)
	// An invalid template fails the build with the validator's message.
	r, err = c.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "1.0.1", DataTemplate: "data:\n  tables: {}\n"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Version, r.Status, r.Error != "")
	// Output:
	// 1.0.0 READY
	// 1.0.1 FAILED true
}

func ExampleClient_InstallGroupApp() {
	p := examplePlatform()
	defer p.Close()
	ctx := context.Background()
	c := management.New(p.HTTPURL(), "alice-token")

	devices, _ := c.CreateDevices(ctx, 1, management.NewDevice{Name: "press"})
	app, _ := c.CreateApp(ctx, management.NewApp{Name: "telemetry"})
	if _, err := c.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "1.0.0"}); err != nil {
		fmt.Println(err)
		return
	}
	// An app installed on a group reaches every member, present and future.
	if _, err := c.InstallGroupApp(ctx, 1, 1, management.GroupInstall{AppKey: app.AppKey, Stage: management.Dev}); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.AddDeviceToGroup(ctx, 1, 1, devices[0].DeviceKey); err != nil {
		fmt.Println(err)
		return
	}
	apps, _ := c.ListDeviceApps(ctx, devices[0].DeviceKey)
	for _, a := range apps {
		fmt.Println(a.AppName, a.Stage, a.TargetState, "inherited:", a.InheritFromGroup)
	}
	// The environment of the installation (what the device agent injects)
	// is a Go-side affair of the fake: the API never shows credentials.
	in := p.InstallationOf(devices[0].DeviceKey, app.AppKey, platformtest.Dev)
	fmt.Println(in.Realm())
	// Output:
	// telemetry DEV RUNNING inherited: true
	// realm-1-1-dev
}

func ExampleError() {
	p := examplePlatform()
	defer p.Close()
	c := management.New(p.HTTPURL(), "alice-token")

	_, err := c.GetDevice(context.Background(), 42)
	var e *management.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code)
	}
	fmt.Println(errors.Is(err, management.ErrNotFound))
	// Output:
	// 404 NOT_FOUND
	// true
}
