// This file holds the tests of the floor client: templates and reply
// headers as pure functions, and the three ways of sending against an
// in-process platform.

package floorclient

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// TestTemplateDecodes checks that a patched template is the message it
// was made from, with the new request ID, as the router decodes it.
func TestTemplateDecodes(t *testing.T) {
	args := []any{map[string]any{"temperature": 21.5, "ok": true}}
	kwargs := map[string]any{"DEVICE_KEY": "1"}
	pub, err := PublishTemplate("com.example.t", args, kwargs)
	if err != nil {
		t.Fatal(err)
	}
	call, err := CallTemplate("com.example.p", args, nil)
	if err != nil {
		t.Fatal(err)
	}
	ser := &serialize.MessagePackSerializer{}
	for _, id := range []uint64{1, 200, 1 << 40} {
		pub.setID(id)
		m, err := ser.Deserialize(pub.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		p, ok := m.(*wamp.Publish)
		if !ok || uint64(p.Request) != id || p.Topic != "com.example.t" || p.Options["acknowledge"] != true {
			t.Fatalf("id %d: decoded %#v", id, m)
		}
		if diff := cmp.Diff(kwargs, map[string]any(p.ArgumentsKw)); diff != "" {
			t.Errorf("kwargs (-want +got):\n%s", diff)
		}
		call.setID(id)
		m, err = ser.Deserialize(call.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := m.(*wamp.Call); !ok || uint64(c.Request) != id || c.Procedure != "com.example.p" || len(c.Arguments) != 1 {
			t.Fatalf("id %d: decoded %#v", id, m)
		}
	}
}

// TestHeader reads type and request ID from replies encoded by nexus.
func TestHeader(t *testing.T) {
	ser := &serialize.MessagePackSerializer{}
	cases := []struct {
		msg  wamp.Message
		code int
		id   uint64
	}{
		{&wamp.Published{Request: 7, Publication: 99}, codePublished, 7},
		{&wamp.Published{Request: 70000, Publication: 1 << 50}, codePublished, 70000},
		{&wamp.Result{Request: 1 << 53, Details: wamp.Dict{}, Arguments: wamp.List{1}}, codeResult, 1 << 53},
		{&wamp.Error{Type: wamp.CALL, Request: 300, Details: wamp.Dict{}, Error: "wamp.error.no_such_procedure"}, codeError, 300},
		{&wamp.Goodbye{Details: wamp.Dict{}, Reason: "wamp.close.normal"}, codeGoodbye, 0},
	}
	for _, c := range cases {
		b, err := ser.Serialize(c.msg)
		if err != nil {
			t.Fatal(err)
		}
		code, id, err := header(b)
		if err != nil || code != c.code || id != c.id {
			t.Errorf("%T: header = %d, %d, %v; want %d, %d", c.msg, code, id, err, c.code, c.id)
		}
	}
	for _, bad := range [][]byte{nil, {0x93}, {0x93, 0x11}, {0x93, 0x11, 0xcf, 1}, {0x81, 0x01}, {0x93, 0x11, 0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0}} {
		if _, _, err := header(bad); err == nil {
			t.Errorf("header(% x): no error", bad)
		}
	}
}

// fleet starts a platform with two devices of one app and a callee
// registered by an SDK client on the second; the caller joins in format f.
func fleet(t *testing.T, f Format) (p *platformtest.Platform, caller *Conn, procedure string, calls func() int) {
	t.Helper()
	p = platformtest.New(t)
	app := p.AddApp("floor", "")
	a, b := p.Install(p.AddDevice("a"), app, platformtest.Dev), p.Install(p.AddDevice("b"), app, platformtest.Dev)
	ctx := context.Background()
	callee, err := client.New(client.WithEnv(b.Env()))
	if err != nil {
		t.Fatal(err)
	}
	if err := callee.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = callee.Stop(context.Background()) })
	var mu sync.Mutex
	n := 0
	reg, err := callee.RegisterDeviceFunction(ctx, "echo", func(_ context.Context, inv *client.Invocation) (any, error) {
		mu.Lock()
		n++
		mu.Unlock()
		return inv.Args, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	authID, secret := a.Credentials()
	caller, err = DialFormat(ctx, p.URL(), a.Realm(), authID, secret, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = caller.Close() })
	return p, caller, reg.Procedure(), func() int { mu.Lock(); defer mu.Unlock(); return n }
}

func countTopic(p *platformtest.Platform, topic string) int {
	n := 0
	for _, m := range p.Publications() {
		if m.URI == topic {
			n++
		}
	}
	return n
}

func TestDo(t *testing.T) {
	leakcheck.Check(t)
	p, c, proc, calls := fleet(t, MsgPack)
	ctx := context.Background()
	pub, _ := PublishTemplate("com.example.do", []any{1}, nil)
	call, _ := CallTemplate(proc, []any{"x"}, nil)
	for range 50 {
		if err := c.Do(ctx, pub); err != nil {
			t.Fatal(err)
		}
		if err := c.Do(ctx, call); err != nil {
			t.Fatal(err)
		}
	}
	if got := countTopic(p, "com.example.do"); got != 50 {
		t.Errorf("%d publications, want 50", got)
	}
	if calls() != 50 {
		t.Errorf("%d invocations, want 50", calls())
	}
	missing, _ := CallTemplate("com.example.none", nil, nil)
	var re *RequestError
	if err := c.Do(ctx, missing); !errors.As(err, &re) || re.Code != codeError {
		t.Errorf("call of a missing procedure: %v, want an ERROR", err)
	} else if !strings.Contains(re.Reply, "wamp.error.no_such_procedure") {
		t.Errorf("the ERROR's reply %q does not hold its URI", re.Reply)
	}
	// The connection still works after an ERROR.
	if err := c.Do(ctx, pub); err != nil {
		t.Errorf("publish after an error: %v", err)
	}
}

func TestCallers(t *testing.T) {
	leakcheck.Check(t)
	p, c, proc, calls := fleet(t, MsgPack)
	c.StartReader()
	ctx := context.Background()
	pub, _ := PublishTemplate("com.example.many", []any{1}, nil)
	call, _ := CallTemplate(proc, []any{"x"}, nil)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		k := c.NewCaller()
		wg.Go(func() {
			for range 40 {
				if err := k.Do(ctx, pub); err != nil {
					errs <- err
					return
				}
				if err := k.Do(ctx, call); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := countTopic(p, "com.example.many"); got != 320 {
		t.Errorf("%d publications, want 320", got)
	}
	if calls() != 320 {
		t.Errorf("%d invocations, want 320", calls())
	}
	// A canceled wait returns ctx's error; a closed connection fails the
	// next request.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.NewCaller().Do(cctx, pub); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	_ = c.Close()
	if err := c.NewCaller().Do(ctx, pub); err == nil {
		t.Error("request on a closed connection succeeded")
	}
}

func TestPipeline(t *testing.T) {
	leakcheck.Check(t)
	p, c, proc, calls := fleet(t, MsgPack)
	ctx := context.Background()
	for _, tc := range []struct {
		tpl   func() *Template
		count func() int
	}{
		{func() *Template { x, _ := PublishTemplate("com.example.pipe", []any{1}, nil); return x },
			func() int { return countTopic(p, "com.example.pipe") }},
		{func() *Template { x, _ := CallTemplate(proc, []any{1}, nil); return x }, calls},
	} {
		taken, done := 0, 0
		n, err := c.Pipeline(ctx, tc.tpl(), 16, func() bool { taken++; return taken <= 100 }, func() { done++ })
		if err != nil || n != 100 || done != 100 {
			t.Fatalf("pipeline: %d ok, %d done, %v; want 100", n, done, err)
		}
		if got := tc.count(); got != 100 {
			t.Errorf("router saw %d, want 100", got)
		}
	}
	// Fewer operations than the depth.
	tpl, _ := PublishTemplate("com.example.few", []any{1}, nil)
	taken := 0
	if n, err := c.Pipeline(ctx, tpl, 16, func() bool { taken++; return taken <= 3 }, func() {}); err != nil || n != 3 {
		t.Errorf("3 of depth 16: %d, %v", n, err)
	}
	// Watch ends a pipeline whose ctx ends.
	cctx, cancel := context.WithCancel(ctx)
	stop := c.Watch(cctx)
	defer stop()
	_, err := c.Pipeline(cctx, tpl, 4, func() bool { cancel(); return true }, func() {})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("canceled pipeline: %v", err)
	}
}

// TestJSONTemplates checks that a JSON template, its ID written, is the
// message it was made from, as the router decodes it.
func TestJSONTemplates(t *testing.T) {
	args := []any{map[string]any{"temperature": 21.5, "ok": true}}
	call, err := CallTemplateOf(JSON, "com.example.p", args, nil)
	if err != nil {
		t.Fatal(err)
	}
	yield, err := YieldTemplate(JSON, args, nil)
	if err != nil {
		t.Fatal(err)
	}
	ser := &serialize.JSONSerializer{}
	for _, id := range []uint64{1, 200, 1 << 40} {
		m, err := ser.Deserialize(call.withID(id))
		if err != nil {
			t.Fatal(err)
		}
		if c, ok := m.(*wamp.Call); !ok || uint64(c.Request) != id || c.Procedure != "com.example.p" || len(c.Arguments) != 1 {
			t.Fatalf("id %d: decoded %#v", id, m)
		}
		m, err = ser.Deserialize(yield.withID(id))
		if err != nil {
			t.Fatal(err)
		}
		if y, ok := m.(*wamp.Yield); !ok || uint64(y.Request) != id || len(y.Arguments) != 1 {
			t.Fatalf("id %d: decoded %#v", id, m)
		}
	}
	if call.Len() != len(call.withID(0)) {
		t.Errorf("Len = %d, want %d", call.Len(), len(call.withID(0)))
	}
}

// TestHeaderJSON reads type and request ID from JSON replies encoded by
// nexus.
func TestHeaderJSON(t *testing.T) {
	ser := &serialize.JSONSerializer{}
	for _, c := range []struct {
		msg  wamp.Message
		code int
		id   uint64
	}{
		{&wamp.Published{Request: 7, Publication: 99}, codePublished, 7},
		{&wamp.Result{Request: 1 << 53, Details: wamp.Dict{}, Arguments: wamp.List{1}}, codeResult, 1 << 53},
		{&wamp.Invocation{Request: 12, Registration: 3, Details: wamp.Dict{}}, codeInvocation, 12},
		{&wamp.Registered{Request: 5, Registration: 1}, codeRegistered, 5},
		{&wamp.Error{Type: wamp.CALL, Request: 300, Details: wamp.Dict{}, Error: "wamp.error.no_such_procedure"}, codeError, 300},
		{&wamp.Goodbye{Details: wamp.Dict{}, Reason: "wamp.close.normal"}, codeGoodbye, 0},
	} {
		b, err := ser.Serialize(c.msg)
		if err != nil {
			t.Fatal(err)
		}
		code, id, err := headerJSON(b)
		if err != nil || code != c.code || id != c.id {
			t.Errorf("%s: header = %d, %d, %v; want %d, %d", b, code, id, err, c.code, c.id)
		}
	}
	for _, bad := range []string{"", "{}", "[", "[x", "[50,", "[50,-1]"} {
		if _, _, err := headerJSON([]byte(bad)); err == nil {
			t.Errorf("headerJSON(%q): no error", bad)
		}
	}
}

// TestServe registers a floor callee in each format and has an SDK client
// call it: every call gets the pre-encoded YIELD, and served counts them.
func TestServe(t *testing.T) {
	leakcheck.Check(t)
	for _, f := range []Format{MsgPack, JSON} {
		p := platformtest.New(t)
		app := p.AddApp("floor", "")
		a, b := p.Install(p.AddDevice("a"), app, platformtest.Dev), p.Install(p.AddDevice("b"), app, platformtest.Dev)
		ctx := context.Background()
		authID, secret := a.Credentials()
		conn, err := DialFormat(ctx, p.URL(), a.Realm(), authID, secret, f)
		if err != nil {
			t.Fatal(err)
		}
		env := a.Env()
		proc := fmt.Sprintf("%s.%s.%s.%s.serve", env[wire.EnvSwarmKey], env[wire.EnvDeviceKey], env[wire.EnvAppKey], env[wire.EnvStage])
		if err := conn.Register(ctx, proc, map[string]any{}); err != nil {
			t.Fatal(err)
		}
		yield, err := YieldTemplate(f, []any{"answer"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		var served sync.WaitGroup
		served.Add(20)
		done := make(chan error, 1)
		go func() { done <- conn.Serve(yield, served.Done) }()
		caller, err := client.New(client.WithEnv(b.Env()))
		if err != nil {
			t.Fatal(err)
		}
		if err := caller.Start(ctx); err != nil {
			t.Fatal(err)
		}
		for range 20 {
			res, err := caller.Call(ctx, proc, "x")
			if err != nil || len(res.Args) != 1 || res.Args[0] != "answer" {
				t.Fatalf("call: %v, %v", res, err)
			}
		}
		served.Wait()
		_ = caller.Stop(ctx)
		_ = conn.Close()
		if err := <-done; err == nil {
			t.Error("Serve returned no error on a closed connection")
		}
	}
}

// TestDoJSON runs calls and publications over a JSON connection.
func TestDoJSON(t *testing.T) {
	leakcheck.Check(t)
	_, c, proc, calls := fleet(t, JSON)
	call, _ := CallTemplateOf(JSON, proc, []any{"x"}, nil)
	for range 10 {
		if err := c.Do(context.Background(), call); err != nil {
			t.Fatal(err)
		}
	}
	if calls() != 10 {
		t.Errorf("%d invocations, want 10", calls())
	}
}
