// This file holds the measured clients: the SDK, a raw nexus v3 client
// and the floor client (with one goroutine per request in flight, or one
// goroutine pipelining them).

package main

import (
	"context"
	"errors"
	"io"
	"log"
	"log/slog"
	"strconv"
	"sync/atomic"
	"time"

	nxclient "github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/floorclient"
	"github.com/flockgo/ironflock/internal/wire"
)

// clientKinds lists every client, in the order they run.
var clientKinds = []clientKind{
	{Name: "sdk", supports: always, open: openSDK},
	{Name: "sdk-any", supports: callOrServe, open: openSDKAny},
	{Name: "sdk-hooks", supports: notServe, open: openSDKHooks},
	{Name: "nexus", supports: notServe, open: openNexus},
	{Name: "floor", supports: always, open: openFloor},
	{Name: "floor-1g", supports: func(sc scenario) bool { return sc.InFlight > 1 && !sc.Serve }, open: openFloorPipelined},
}

func always(scenario) bool { return true }

func callOrServe(sc scenario) bool { return sc.Call || sc.Serve }

func notServe(sc scenario) bool { return !sc.Serve }

// sdkClient starts the repository's client with env, as an app would, in
// sc's serialization.
func sdkClient(ctx context.Context, env map[string]string, sc scenario, opts ...client.Option) (*client.Client, func(), error) {
	ser := client.MsgPack
	if sc.JSON {
		ser = client.JSON
	}
	c, err := client.New(append([]client.Option{client.WithEnv(env), client.WithSerializer(ser),
		client.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)...)
	if err != nil {
		return nil, nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, nil, err
	}
	return c, func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = c.Stop(sctx)
	}, nil
}

// openSDK connects the repository's client as an app would: it publishes
// the row, calls the callee decoding the result into a struct (Into), or
// serves invocations decoding the arguments into one (LazyArgs).
func openSDK(ctx context.Context, t target, sc scenario) (*workload, error) {
	return openSDKAs(ctx, t, sc, true)
}

// openSDKAny is openSDK taking results and arguments in wire form: a
// call's *Result, an invocation's Args.
func openSDKAny(ctx context.Context, t target, sc scenario) (*workload, error) {
	return openSDKAs(ctx, t, sc, false)
}

// openSDKHooks is openSDK with a counting hook (client.WithHooks), as a
// metrics exporter would count: what the hooks cost.
func openSDKHooks(ctx context.Context, t target, sc scenario) (*workload, error) {
	return openSDKAs(ctx, t, sc, true, client.WithHooks(&countingHook{}))
}

// countingHook counts publications and calls with atomics.
type countingHook struct{ n, bytes, nanos atomic.Int64 }

func (h *countingHook) count(out client.Outcome) {
	h.n.Add(1)
	h.bytes.Add(int64(out.Bytes))
	h.nanos.Add(int64(out.Latency))
}

// OnPublish implements client.HookPublish.
func (h *countingHook) OnPublish(_ context.Context, _ client.Op, out client.Outcome) { h.count(out) }

// OnCall implements client.HookCall.
func (h *countingHook) OnCall(_ context.Context, _ client.Op, out client.Outcome) { h.count(out) }

func openSDKAs(ctx context.Context, t target, sc scenario, typed bool, opts ...client.Option) (*workload, error) {
	if sc.Serve {
		return openSDKCallee(ctx, t, sc, typed)
	}
	c, stop, err := sdkClient(ctx, t.Fleet.Caller, sc, opts...)
	if err != nil {
		return nil, err
	}
	w := &workload{close: stop}
	data := row()
	switch {
	case sc.Call:
		key, err := strconv.Atoi(t.Fleet.Callee[wire.EnvDeviceKey])
		if err != nil {
			stop()
			return nil, errors.New("callee environment without a numeric DEVICE_KEY")
		}
		if !typed {
			w.op = func(ctx context.Context, _ int) error {
				_, err := c.CallDeviceFunction(ctx, key, calleeFunction, data)
				return err
			}
			break
		}
		// One result per caller, as a loop calling a device function keeps.
		outs := make([]reading, sc.InFlight)
		w.op = func(ctx context.Context, i int) error {
			_, err := c.CallDeviceFunction(ctx, key, calleeFunction, data, client.Into(&outs[i]))
			return err
		}
	default:
		w.op = func(ctx context.Context, _ int) error { return c.Publish(ctx, benchTopic, data) }
	}
	return w, nil
}

// openNexus connects a nexus v3 client with msgpack and WAMP-CRA, with the
// caller's credential.
func openNexus(ctx context.Context, t target, sc scenario) (*workload, error) {
	env := t.Fleet.Caller
	r, err := realm(env)
	if err != nil {
		return nil, err
	}
	secret := env[wire.EnvAppAuthSecret]
	cfg := nxclient.Config{
		Realm:        r,
		HelloDetails: wamp.Dict{"authid": env[wire.EnvAppAuthID]},
		AuthHandlers: map[string]nxclient.AuthFunc{"wampcra": func(c *wamp.Challenge) (string, wamp.Dict) {
			return crsign.RespondChallenge(secret, c, nil), wamp.Dict{}
		}},
		Serialization: serialize.MSGPACK,
		Logger:        log.New(io.Discard, "", 0),
	}
	if sc.JSON {
		cfg.Serialization = serialize.JSON
	}
	nc, err := nxclient.ConnectNet(ctx, t.Fleet.WSURL, cfg)
	if err != nil {
		return nil, err
	}
	w := &workload{close: func() { _ = nc.Close() }}
	args := wamp.List{row()}
	if sc.Call {
		w.op = func(ctx context.Context, _ int) error {
			_, err := nc.Call(ctx, t.Procedure, nil, args, nil, nil)
			return err
		}
	} else {
		kwargs := wamp.Dict(publishKwargs(env))
		opts := wamp.Dict{wamp.OptAcknowledge: true}
		w.op = func(context.Context, int) error { return nc.Publish(benchTopic, opts, args, kwargs) }
	}
	return w, nil
}

// floorFormat is the floor client's format in sc.
func floorFormat(sc scenario) floorclient.Format {
	if sc.JSON {
		return floorclient.JSON
	}
	return floorclient.MsgPack
}

// floorTemplate pre-encodes sc's request.
func floorTemplate(t target, sc scenario) (*floorclient.Template, error) {
	if sc.Call {
		return floorclient.CallTemplateOf(floorFormat(sc), t.Procedure, []any{row()}, nil)
	}
	return floorclient.PublishTemplate(benchTopic, []any{row()}, publishKwargs(t.Fleet.Caller))
}

// dialFloorAs joins as the device of env in sc's format.
func dialFloorAs(ctx context.Context, t target, env map[string]string, sc scenario) (*floorclient.Conn, error) {
	r, err := realm(env)
	if err != nil {
		return nil, err
	}
	return floorclient.DialFormat(ctx, t.Fleet.WSURL, r, env[wire.EnvAppAuthID], env[wire.EnvAppAuthSecret], floorFormat(sc))
}

// dialFloor pre-encodes sc's request and joins with the caller's
// credential.
func dialFloor(ctx context.Context, t target, sc scenario) (*floorclient.Template, *floorclient.Conn, error) {
	tpl, err := floorTemplate(t, sc)
	if err != nil {
		return nil, nil, err
	}
	conn, err := dialFloorAs(ctx, t, t.Fleet.Caller, sc)
	return tpl, conn, err
}

// openFloor runs the floor client: one goroutine writing then reading for
// one in flight, else one Caller per goroutine with one reader goroutine;
// in the serve scenarios, the floor callee.
func openFloor(ctx context.Context, t target, sc scenario) (*workload, error) {
	if sc.Serve {
		return openFloorCallee(ctx, t, sc)
	}
	tpl, conn, err := dialFloor(ctx, t, sc)
	if err != nil {
		return nil, err
	}
	if sc.InFlight == 1 {
		return &workload{
			loop: func(ctx context.Context, ctl *control) error {
				defer conn.Watch(ctx)()
				for ctl.take() {
					if err := conn.Do(ctx, tpl); err != nil {
						return err
					}
					ctl.done()
				}
				return nil
			},
			close: func() { _ = conn.Close() },
		}, nil
	}
	conn.StartReader()
	callers := make([]*floorclient.Caller, sc.InFlight)
	for i := range callers {
		callers[i] = conn.NewCaller()
	}
	return &workload{
		op:    func(ctx context.Context, i int) error { return callers[i].Do(ctx, tpl) },
		close: func() { _ = conn.Close() },
	}, nil
}

// openFloorPipelined runs the floor client from one goroutine keeping
// sc.InFlight requests in flight.
func openFloorPipelined(ctx context.Context, t target, sc scenario) (*workload, error) {
	tpl, conn, err := dialFloor(ctx, t, sc)
	if err != nil {
		return nil, err
	}
	return &workload{
		loop: func(ctx context.Context, ctl *control) error {
			defer conn.Watch(ctx)()
			_, err := conn.Pipeline(ctx, tpl, sc.InFlight, ctl.take, ctl.done)
			return err
		},
		close: func() { _ = conn.Close() },
	}, nil
}
