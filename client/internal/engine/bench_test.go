// This file holds the benchmarks of the engine's hot path: an acknowledged
// Publish and a Call through a Session, against a raw nexus client and a
// "floor" client (gorilla/websocket, pre-encoded messages, no dispatch) on
// the same platformtest router. Each reports allocations and the process's
// CPU per operation (cpu-ns/op, from getrusage). The router runs in a child
// process (the test binary started again with benchRouterEnv set), so both
// figures are the client's alone; they still depend on the machine and its
// load, so compare clients within one run.

package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	nxclient "github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
	"github.com/gorilla/websocket"

	"github.com/flockgo/ironflock/internal/selfexec"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// benchRow is the ~100-byte row of issue 14.
var benchRow = map[string]any{"temperature": 21.5, "humidity": int64(40), "source": "bench", "ok": true}

const benchTopic = "com.example.Bench"

// benchEnv is a platformtest router in a child process (so that the
// process's CPU and allocations are the client's alone) with two
// installations of one app: A publishes and calls, B serves the device
// function from the router's process.
type benchEnv struct {
	URL    string
	A, B   benchInst
	Meta   map[string]any
	Callee string // the device function served by a session of B
}

// benchInst is the credential of one installation.
type benchInst struct{ Realm, AuthID, Secret string }

// benchRouterEnv, when set, makes the test binary the benchmarks' router.
const benchRouterEnv = "IRONFLOCK_ENGINE_BENCH_ROUTER"

func TestMain(m *testing.M) {
	if os.Getenv(benchRouterEnv) != "" {
		os.Exit(runBenchRouter())
	}
	os.Exit(m.Run())
}

// runBenchRouter starts the platform, prints the benchEnv as one JSON line
// and serves until its standard input closes.
func runBenchRouter() int {
	p, err := platformtest.Start(platformtest.WithLogger(slog.New(slog.DiscardHandler)), platformtest.WithoutRecording())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer p.Close()
	app := p.AddApp("bench", "")
	a, b := p.Install(p.AddDevice("a"), app, platformtest.Dev), p.Install(p.AddDevice("b"), app, platformtest.Dev)
	inst := func(in *platformtest.Installation) benchInst {
		id, secret := in.Credentials()
		return benchInst{Realm: in.Realm(), AuthID: id, Secret: secret}
	}
	env := a.Env()
	benv := b.Env()
	swarm, _ := strconv.Atoi(benv[wire.EnvSwarmKey])
	dev, _ := strconv.Atoi(benv[wire.EnvDeviceKey])
	appKey, _ := strconv.Atoi(benv[wire.EnvAppKey])
	e := benchEnv{URL: p.URL(), A: inst(a), B: inst(b),
		Meta:   map[string]any{"DEVICE_SERIAL_NUMBER": env[wire.EnvSerialNumber], "DEVICE_KEY": env[wire.EnvDeviceKey], "DEVICE_NAME": env[wire.EnvDeviceName]},
		Callee: wire.DeviceFunction(swarm, dev, appKey, benv[wire.EnvStage], "echo")}
	// The callee lives here too, so that the client's figures are its own.
	callee, err := Connect(context.Background(), e.config(e.B))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = callee.Leave(context.Background()) }()
	err = callee.Register(context.Background(), &Procedure{URI: e.Callee, Options: map[string]any{}, Handler: func(_ context.Context, inv Invocation) (Payload, error) {
		return Payload{Args: inv.Args}, nil
	}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := json.NewEncoder(os.Stdout).Encode(e); err != nil {
		return 1
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// newBenchEnv starts the router process, stopped at the end of b.
func newBenchEnv(b *testing.B) *benchEnv {
	b.Helper()
	cmd := selfexec.Command()
	cmd.Env = append(os.Environ(), benchRouterEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(selfexec.Explain(err))
	}
	b.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	var e benchEnv
	if err := json.NewDecoder(stdout).Decode(&e); err != nil {
		b.Fatalf("bench router: %v", err)
	}
	return &e
}

// config returns the Config of a session of inst.
func (e *benchEnv) config(inst benchInst) Config {
	return Config{URL: e.URL, Realm: inst.Realm, AuthID: inst.AuthID, Auth: []AuthMethod{{Name: AuthWAMPCRA, Secret: inst.Secret}},
		HandshakeTimeout: 5 * time.Second, ResponseTimeout: 10 * time.Second, KeepaliveIdle: time.Minute, PongTimeout: time.Minute}
}

// session connects a Session of inst, left at the end of the benchmark.
func (e *benchEnv) session(b *testing.B, inst benchInst) *Session {
	b.Helper()
	s, err := Connect(context.Background(), e.config(inst))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Leave(context.Background()) })
	return s
}

// nexus connects a raw nexus client of inst.
func (e *benchEnv) nexus(b *testing.B, inst benchInst) *nxclient.Client {
	b.Helper()
	nc, err := nxclient.ConnectNet(context.Background(), e.URL, nxclient.Config{
		Realm:        inst.Realm,
		HelloDetails: wamp.Dict{"authid": inst.AuthID},
		AuthHandlers: map[string]nxclient.AuthFunc{"wampcra": func(c *wamp.Challenge) (string, wamp.Dict) {
			return crsign.RespondChallenge(inst.Secret, c, nil), wamp.Dict{}
		}},
		Serialization: serialize.MSGPACK,
		Logger:        log.New(io.Discard, "", 0),
	})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { nc.Close() })
	return nc
}

// floor joins with the engine's own dial and join and returns the bare
// WebSocket: the floor client writes pre-encoded messages on it.
func (e *benchEnv) floor(b *testing.B, inst benchInst) *websocket.Conn {
	b.Helper()
	cfg := e.config(inst)
	// gorilla writes the floor's messages, with its own write buffer.
	d := websocket.Dialer{HandshakeTimeout: cfg.HandshakeTimeout, Subprotocols: []string{protoMsgPack}}
	l, err := dialWith(context.Background(), &d, cfg.URL, false, cfg.ResponseTimeout, nil, true, nil)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := join(context.Background(), l, cfg.Realm, cfg.AuthID, cfg.Auth, cfg.ResponseTimeout); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.close(ErrStopped) })
	return l.conn
}

// encodedPublish is an acknowledged PUBLISH of the row with metadata, as
// the floor client sends it.
func (e *benchEnv) encodedPublish(b *testing.B, id wamp.ID) []byte {
	b.Helper()
	raw, err := (&serialize.MessagePackSerializer{}).Serialize(&wamp.Publish{Request: id, Options: wamp.Dict{wire.OptAcknowledge: true},
		Topic: benchTopic, Arguments: wamp.List{benchRow}, ArgumentsKw: e.Meta})
	if err != nil {
		b.Fatal(err)
	}
	return raw
}

// cpuTime returns the CPU time (user and system) the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// measure runs the benchmark loop body n times in total (split over
// workers goroutines) and reports the process's CPU per operation.
func measure(b *testing.B, workers int, op func(worker int)) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	start := cpuTime()
	if workers == 1 {
		for i := 0; i < b.N; i++ {
			op(0)
		}
	} else {
		var wg sync.WaitGroup
		per := (b.N + workers - 1) / workers
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < per; i++ {
					op(w)
				}
			}()
		}
		wg.Wait()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// BenchmarkPublish compares an acknowledged PUBLISH of the row with
// metadata, 1 and 16 in flight, through a Session, a raw nexus client and
// the floor client.
func BenchmarkPublish(b *testing.B) {
	e := newBenchEnv(b)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	args := []any{benchRow}
	b.Run("floor/1", func(b *testing.B) {
		conn := e.floor(b, e.A)
		raw := e.encodedPublish(b, 1)
		measure(b, 1, func(int) {
			if err := conn.WriteMessage(websocket.BinaryMessage, raw); err != nil {
				b.Fatal(err)
			}
			if _, _, err := conn.ReadMessage(); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("nexus/1", func(b *testing.B) {
		nc := e.nexus(b, e.A)
		opts := wamp.Dict{wamp.OptAcknowledge: true}
		measure(b, 1, func(int) {
			if err := nc.Publish(benchTopic, opts, wamp.List{benchRow}, e.Meta); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("session/1", func(b *testing.B) {
		s := e.session(b, e.A)
		measure(b, 1, func(int) {
			if err := s.Publish(ctx, benchTopic, args, e.Meta); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("floor/16", func(b *testing.B) {
		// 16 writers, each with its own request ID, and one reader handing
		// each PUBLISHED to its writer by the ID (a positive fixint).
		conn := e.floor(b, e.A)
		const n = 16
		raws := make([][]byte, n)
		waits := make([]chan struct{}, n)
		for i := range n {
			raws[i] = e.encodedPublish(b, wamp.ID(i+1))
			waits[i] = make(chan struct{}, 1)
		}
		go func() {
			for {
				_, m, err := conn.ReadMessage()
				if err != nil {
					return
				}
				if len(m) > 2 && m[1] == byte(wamp.PUBLISHED) && m[2] >= 1 && m[2] <= n {
					waits[m[2]-1] <- struct{}{}
				}
			}
		}()
		var wmu sync.Mutex
		measure(b, n, func(w int) {
			wmu.Lock()
			err := conn.WriteMessage(websocket.BinaryMessage, raws[w])
			wmu.Unlock()
			if err != nil {
				b.Error(err)
				return
			}
			<-waits[w]
		})
	})
	b.Run("nexus/16", func(b *testing.B) {
		nc := e.nexus(b, e.A)
		opts := wamp.Dict{wamp.OptAcknowledge: true}
		measure(b, 16, func(int) {
			if err := nc.Publish(benchTopic, opts, wamp.List{benchRow}, e.Meta); err != nil {
				b.Error(err)
			}
		})
	})
	b.Run("session/16", func(b *testing.B) {
		s := e.session(b, e.A)
		measure(b, 16, func(int) {
			if err := s.Publish(ctx, benchTopic, args, e.Meta); err != nil {
				b.Error(err)
			}
		})
	})
}

// BenchmarkCall compares a call of an echo device function (served by a
// Session in the router's process) through a Session (msgpack and JSON)
// and a raw nexus client, 1 and 16 callers.
func BenchmarkCall(b *testing.B) {
	e := newBenchEnv(b)
	ctx := context.Background()
	args := []any{benchRow}
	for _, callers := range []int{1, 16} {
		b.Run("nexus/"+strconv.Itoa(callers), func(b *testing.B) {
			nc := e.nexus(b, e.A)
			measure(b, callers, func(int) {
				if _, err := nc.Call(ctx, e.Callee, nil, wamp.List{benchRow}, nil, nil); err != nil {
					b.Error(err)
				}
			})
		})
		b.Run("session/"+strconv.Itoa(callers), func(b *testing.B) {
			s := e.session(b, e.A)
			measure(b, callers, func(int) {
				if _, err := s.Call(ctx, e.Callee, args, nil, CallOptions{}); err != nil {
					b.Error(err)
				}
			})
		})
		b.Run("session-json/"+strconv.Itoa(callers), func(b *testing.B) {
			cfg := e.config(e.A)
			cfg.JSON = true
			s, err := Connect(context.Background(), cfg)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = s.Leave(context.Background()) })
			measure(b, callers, func(int) {
				if _, err := s.Call(ctx, e.Callee, args, nil, CallOptions{}); err != nil {
					b.Error(err)
				}
			})
		})
	}
}
