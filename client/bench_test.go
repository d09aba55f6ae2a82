// This file holds the benchmarks of Publish and Call against a raw nexus
// client on the same router, and the helpers the benchmarks share.

package client_test

import (
	"context"
	"io"
	"log"
	"testing"

	nxclient "github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// rawNexus connects a plain nexus client with inst's credential: the
// baseline the SDK is measured against, on the same router.
func rawNexus(b *testing.B, p *platformtest.Platform, inst *platformtest.Installation) *nxclient.Client {
	b.Helper()
	authID, secret := inst.Credentials()
	cfg := nxclient.Config{
		Realm:        inst.Realm(),
		HelloDetails: wamp.Dict{"authid": authID},
		AuthHandlers: map[string]nxclient.AuthFunc{"wampcra": func(c *wamp.Challenge) (string, wamp.Dict) {
			return crsign.RespondChallenge(secret, c, nil), wamp.Dict{}
		}},
		Serialization: serialize.MSGPACK,
		Logger:        log.New(io.Discard, "", 0),
	}
	nc, err := nxclient.ConnectNet(context.Background(), p.URL(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { nc.Close() })
	return nc
}

func benchFleet(b *testing.B) (*platformtest.Platform, *platformtest.Installation, *platformtest.Installation) {
	p := platformtest.New(b)
	app := p.AddApp("bench", "")
	return p, p.Install(p.AddDevice("a"), app, platformtest.Dev), p.Install(p.AddDevice("b"), app, platformtest.Dev)
}

// benchClient starts a client of inst with the fast cadences of the tests
// and opts after them; Stop is registered as cleanup.
func benchClient(b *testing.B, inst *platformtest.Installation, opts ...client.Option) *client.Client {
	b.Helper()
	c, err := client.New(append(append([]client.Option{client.WithEnv(inst.Env())}, fast...), opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Stop(context.Background()) })
	return c
}

var benchRow = map[string]any{"temperature": 21.5, "humidity": 40, "source": "bench", "ok": true}

// BenchmarkPublish compares an acknowledged publish of one row through the
// SDK (argument conversion, device metadata, ack) with a raw nexus client's
// acknowledged publish of the same payload on the same router.
func BenchmarkPublish(b *testing.B) {
	p, inst, _ := benchFleet(b)
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, inst)
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Publish(ctx, "com.example.bench", benchRow); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("nexus", func(b *testing.B) {
		nc := rawNexus(b, p, inst)
		meta := wamp.Dict{"DEVICE_SERIAL_NUMBER": inst.Device().Serial(), "DEVICE_KEY": "1", "DEVICE_NAME": "a"}
		b.ReportAllocs()
		for b.Loop() {
			if err := nc.Publish("com.example.bench", wamp.Dict{wamp.OptAcknowledge: true}, wamp.List{benchRow}, meta); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCall compares a call of a device function through the SDK with a
// raw nexus client's call of the same procedure; the callee is an SDK
// client in both cases.
func BenchmarkCall(b *testing.B) {
	p, calleeInst, callerInst := benchFleet(b)
	ctx := context.Background()
	callee := benchClient(b, calleeInst)
	reg, err := callee.RegisterDeviceFunction(ctx, "echo", func(ctx context.Context, inv *client.Invocation) (any, error) {
		return inv.Args[0], nil
	})
	if err != nil {
		b.Fatal(err)
	}
	key := calleeInst.Device().Key()
	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, callerInst)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.CallDeviceFunction(ctx, key, "echo", benchRow); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("nexus", func(b *testing.B) {
		nc := rawNexus(b, p, callerInst)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := nc.Call(ctx, reg.Procedure(), nil, wamp.List{benchRow}, nil, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
