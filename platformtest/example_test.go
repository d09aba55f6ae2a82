package platformtest_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"

	"github.com/flockgo/ironflock/platformtest"
)

// join connects a raw nexus client with an installation's credential.
func join(ctx context.Context, p *platformtest.Platform, in *platformtest.Installation) (*client.Client, error) {
	authid, secret := in.Credentials()
	return client.ConnectNet(ctx, p.URL(), client.Config{
		Realm:        in.Realm(),
		HelloDetails: wamp.Dict{"authid": authid},
		AuthHandlers: map[string]client.AuthFunc{
			"wampcra": func(c *wamp.Challenge) (string, wamp.Dict) {
				return crsign.RespondChallenge(secret, c, nil), wamp.Dict{}
			},
		},
		Serialization: client.MSGPACK,
		Logger:        log.New(io.Discard, "", 0),
	})
}

// A device app joins its realm with the per-app credential the platform
// hands out; the router reports the device serial as its authid.
func Example() {
	p, err := platformtest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	dev := p.AddDevice("sensor-1", platformtest.Serial("5b3c0e4e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"))
	app := p.AddApp("quickstart", "")
	in := p.Install(dev, app, platformtest.Dev)

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := join(ctx, p, in)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()

	authid, _ := in.Credentials()
	fmt.Println("realm:", in.Realm())
	fmt.Println("authid sent:", authid)
	fmt.Println("authid seen:", c.RealmDetails()["authid"])
	fmt.Println("role:", c.RealmDetails()["authrole"])
	// Output:
	// realm: realm-1-1-dev
	// authid sent: app-1-dev-e1@5b3c0e4e-1f2a-4b3c-8d4e-5f6a7b8c9d0e
	// authid seen: 5b3c0e4e-1f2a-4b3c-8d4e-5f6a7b8c9d0e
	// role: app
}

// Env is the environment a device agent injects into the app container.
func ExampleInstallation_Env() {
	p, err := platformtest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	plant := p.AddProject("plant", platformtest.Key(2))
	dev := plant.AddDevice("press-7", platformtest.Key(42))
	in := p.Install(dev, p.AddApp("monitor", "", platformtest.Key(26)), platformtest.Prod)

	env := in.Env()
	for _, name := range slices.Sorted(maps.Keys(env)) {
		switch name {
		case "APP_AUTH_SECRET", "DEVICE_ENDPOINT_URL", "DEVICE_SERIAL_NUMBER":
			fmt.Printf("%s=…\n", name)
		case "APP_AUTH_ID":
			id, _, _ := strings.Cut(env[name], "@")
			fmt.Printf("%s=%s@…\n", name, id)
		default:
			fmt.Printf("%s=%s\n", name, env[name])
		}
	}
	// Output:
	// APP_AUTH_ID=app-26-prod-e1@…
	// APP_AUTH_SECRET=…
	// APP_KEY=26
	// APP_NAME=monitor
	// DEVICE_ENDPOINT_URL=…
	// DEVICE_KEY=42
	// DEVICE_NAME=press-7
	// DEVICE_SERIAL_NUMBER=…
	// ENV=PROD
	// SWARM_KEY=2
}

// Refuse makes the platform answer chosen messages with an error, here
// the first subscription to a topic.
func ExamplePlatform_Refuse() {
	p, err := platformtest.Start()
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	in := p.Install(p.AddDevice("d"), p.AddApp("a", ""), platformtest.Dev)

	p.Refuse(platformtest.Refusal{
		Kind:  platformtest.KindSubscribe,
		URI:   "alerts",
		Error: "app.error.busy",
		Times: 1,
	})

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := join(ctx, p, in)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	noop := func(*wamp.Event) {}
	fmt.Println("first:", c.Subscribe("alerts", noop, nil))
	fmt.Println("second:", c.Subscribe("alerts", noop, nil))
	fmt.Println("recorded:", len(p.Recorded()))
	// Output:
	// first: subscribing to topic 'alerts': app.error.busy
	// second: <nil>
	// recorded: 2
}
