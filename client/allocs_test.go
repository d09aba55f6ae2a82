//go:build !race

// This file pins what a call and an invocation allocate in the client's
// process, in msgpack and JSON: the counts are exact, so a change that adds
// an allocation to either path fails here. The router, and the other side
// of each call, run in a child process (the test binary started again
// with allocRouterEnv set), so that the counts are the client's alone.
// (The race detector allocates, and drops sync.Pool items at random: the
// counts hold without it.)

package client_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/selfexec"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// The allocations of one call and of one invocation, each with a row of
// two floats, two strings, an integer and a bool decoded into a struct
// (and, for the invocation, written back from it). Among them: what
// gorilla/websocket allocates per message read (1; the link writes its
// frames itself, engine/frameout.go), the
// Result of a call, and an invocation's Invocation, context and the
// handler's struct (the strings come from the Reader's texts).
const (
	callAllocs       = 2
	invocationAllocs = 4
)

// allocRow is the row every call of these tests sends, as flockbench does.
func allocRow() map[string]any {
	return map[string]any{"temperature": 21.5, "humidity": int64(40), "pressure": 1013.25,
		"source": "bench", "sensor": "greenhouse-3", "seq": int64(12345), "ok": true}
}

// reading is allocRow as a struct.
type reading struct {
	Temperature float64 `json:"temperature"`
	Humidity    int64   `json:"humidity"`
	Pressure    float64 `json:"pressure"`
	Source      string  `json:"source"`
	Sensor      string  `json:"sensor"`
	Seq         int64   `json:"seq"`
	OK          bool    `json:"ok"`
}

func TestCallAllocations(t *testing.T) {
	r := startAllocRouter(t)
	key, err := strconv.Atoi(r.Callee[wire.EnvDeviceKey])
	if err != nil {
		t.Fatal(err)
	}
	for _, ser := range []client.Serializer{client.MsgPack, client.JSON} {
		t.Run(ser.String(), func(t *testing.T) {
			c := allocClient(t, r.Caller, ser)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			row := allocRow()
			var out reading
			call := func() {
				if _, err := c.CallDeviceFunction(ctx, key, "echo", row, client.Into(&out)); err != nil {
					t.Fatal(err)
				}
			}
			call()
			if out.Sensor != "greenhouse-3" || out.Seq != 12345 || !out.OK {
				t.Fatalf("result decoded as %+v", out)
			}
			if n := testing.AllocsPerRun(200, call); n > callAllocs {
				t.Errorf("a call allocates %.0f times, want at most %d", n, callAllocs)
			}
		})
	}
}

func TestInvocationAllocations(t *testing.T) {
	r := startAllocRouter(t)
	for _, ser := range []client.Serializer{client.MsgPack, client.JSON} {
		t.Run(ser.String(), func(t *testing.T) {
			c := allocClient(t, r.Caller, ser)
			ctx := context.Background()
			served := make(chan reading, 1)
			reg, err := c.RegisterDeviceFunction(ctx, "serve-"+ser.String(), func(_ context.Context, inv *client.Invocation) (any, error) {
				var in reading
				if err := inv.Decode(&in); err != nil {
					return nil, err
				}
				select {
				case served <- in:
				default:
				}
				return &in, nil
			}, client.LazyArgs())
			if err != nil {
				t.Fatal(err)
			}
			if got := <-r.calls(t, reg.Procedure(), 1); got != 1 {
				t.Fatalf("%d calls answered, want 1", got)
			}
			if in := <-served; in.Sensor != "greenhouse-3" || in.Seq != 12345 {
				t.Fatalf("arguments decoded as %+v", in)
			}
			const n = 200
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			answered := <-r.calls(t, reg.Procedure(), n)
			runtime.ReadMemStats(&after)
			if answered != n {
				t.Fatalf("%d calls answered, want %d", answered, n)
			}
			if per := (after.Mallocs - before.Mallocs) / n; per > invocationAllocs {
				t.Errorf("an invocation allocates %d times, want at most %d", per, invocationAllocs)
			}
		})
	}
}

// allocRouterEnv, when set, makes the test binary the router of these
// tests.
const allocRouterEnv = "IRONFLOCK_CLIENT_ALLOC_ROUTER"

func TestMain(m *testing.M) {
	if os.Getenv(allocRouterEnv) != "" {
		if err := serveAllocRouter(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// allocRouter is the child process: the environments of the caller's and
// the callee's devices, and its command lines.
type allocRouter struct {
	Caller, Callee map[string]string
	in             io.Writer
	out            *bufio.Scanner
}

// calls asks the child to call procedure n times, one after another, and
// yields the number answered once it has.
func (r *allocRouter) calls(t *testing.T, procedure string, n int) <-chan int {
	t.Helper()
	done := make(chan int, 1)
	if _, err := fmt.Fprintf(r.in, "%s %d\n", procedure, n); err != nil {
		t.Fatal(err)
	}
	go func() {
		got := -1
		if r.out.Scan() {
			got, _ = strconv.Atoi(r.out.Text())
		}
		done <- got
	}()
	return done
}

// startAllocRouter starts the child process, stopped at the end of t.
func startAllocRouter(t testing.TB) *allocRouter {
	t.Helper()
	cmd := selfexec.Command()
	cmd.Env = append(os.Environ(), allocRouterEnv+"=1")
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(selfexec.Explain(err))
	}
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Wait()
	})
	r := &allocRouter{in: in, out: bufio.NewScanner(out)}
	if !r.out.Scan() {
		t.Fatal("the router process ended before it was ready")
	}
	if err := json.Unmarshal(r.out.Bytes(), r); err != nil {
		t.Fatal(err)
	}
	return r
}

// allocClient starts a client of env with serializer ser and opts.
func allocClient(t testing.TB, env map[string]string, ser client.Serializer, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(append([]client.Option{client.WithEnv(env), client.WithSerializer(ser),
		client.WithLogger(slog.New(slog.DiscardHandler))}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = c.Stop(ctx)
	})
	return c
}

// serveAllocRouter is the child: a platform with one app on two devices,
// the callee's device serving "echo" (its first argument back), and a
// caller on the caller's device making the calls asked for on stdin
// ("<procedure> <n>"), answering each request with the number answered.
func serveAllocRouter(stdin io.Reader, stdout io.Writer) error {
	p, err := platformtest.Start(platformtest.WithLogger(slog.New(slog.DiscardHandler)), platformtest.WithoutRecording())
	if err != nil {
		return err
	}
	defer p.Close()
	app := p.AddApp("allocs", "")
	caller, callee := p.Install(p.AddDevice("caller"), app, platformtest.Dev), p.Install(p.AddDevice("callee"), app, platformtest.Dev)
	ctx := context.Background()
	start := func(env map[string]string) (*client.Client, error) {
		c, err := client.New(client.WithEnv(env), client.WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			return nil, err
		}
		return c, c.Start(ctx)
	}
	cc, err := start(callee.Env())
	if err != nil {
		return err
	}
	defer func() { _ = cc.Stop(ctx) }()
	if _, err := cc.RegisterDeviceFunction(ctx, "echo", func(_ context.Context, inv *client.Invocation) (any, error) {
		return inv.Args[0], nil
	}); err != nil {
		return err
	}
	// The driver joins as the callee's device too: the caller's device is
	// the test's.
	driver, err := start(callee.Env())
	if err != nil {
		return err
	}
	defer func() { _ = driver.Stop(ctx) }()
	if err := json.NewEncoder(stdout).Encode(map[string]any{"Caller": caller.Env(), "Callee": callee.Env()}); err != nil {
		return err
	}
	sc := bufio.NewScanner(stdin)
	row := allocRow()
	for sc.Scan() {
		var proc string
		var n int
		if _, err := fmt.Sscan(sc.Text(), &proc, &n); err != nil {
			return err
		}
		answered := 0
		for range n {
			if _, err := driver.Call(ctx, proc, row); err == nil {
				answered++
			}
		}
		fmt.Fprintln(stdout, answered)
	}
	return nil
}
