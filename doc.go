// Package ironflock is the Go SDK of IronFlock, an IoT platform whose edge
// apps run in containers on devices and talk to the cloud over WAMP.
//
// The module is organised in packages:
//
//   - client: the edge SDK. A Client reads the device environment the
//     platform's agent injects, keeps a self-healing connection to the
//     app's realm, and publishes, subscribes, calls and serves device
//     functions.
//   - secrets: reveal and verify of the secret columns of the app's
//     tables, and Value, a struct field that keeps a stored secret.
//   - platformtest: a complete in-memory fake of the platform — WAMP router
//     with authentication, the platform's services, faults and inspection —
//     so any Go app can `go test` without a cloud.
//   - files: the app's managed file storage, through the router and
//     directly to the object store.
//   - crossapp: read-only access to other apps' shared tables, with the
//     project user's grant.
//   - outbox: a durable queue of table rows on the device's disk,
//     delivered once through outages and restarts.
//   - template: parser and validator of the app's .ironflock/ templates.
//   - cmd/flockd: the fake platform as a local server for apps in any
//     language.
//
// A device program is a Client and a main function:
//
//	c, err := client.New() // from the device environment
//	if err != nil {
//		log.Fatal(err)
//	}
//	err = c.Run(ctx, func(ctx context.Context) error {
//		return c.Publish(ctx, "com.example.hello", "world")
//	})
//
// In tests the same program runs against platformtest:
//
//	p := platformtest.New(t)
//	inst := p.Install(p.AddDevice("dev-1"), p.AddApp("my-app", ""), platformtest.Dev)
//	c, err := client.New(client.WithEnv(inst.Env()))
package ironflock
