package platformtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/rest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// agentWorld is a platform with the app of agentsYAML installed on two
// devices in DEV, and a raw WAMP session per device.
type agentWorld struct {
	p        *Platform
	app      *App
	in1, in2 *Installation
}

func newAgentWorld(t *testing.T) *agentWorld {
	t.Helper()
	p := New(t)
	pr := p.AddProject("plant", Key(2))
	app := p.AddAppWithAgents("bot", "", worldtest.AgentsYAML, Key(26))
	w := &agentWorld{p: p, app: app}
	w.in1 = p.Install(pr.AddDevice("press-1", Key(42)), app, Dev)
	w.in2 = p.Install(pr.AddDevice("press-2", Key(43)), app, Dev)
	return w
}

// invocations collects what a device function received.
type invocations struct {
	mu   sync.Mutex
	list []*wamp.Invocation
}

func (iv *invocations) add(inv *wamp.Invocation) {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	iv.list = append(iv.list, inv)
}

func (iv *invocations) all() []*wamp.Invocation {
	iv.mu.Lock()
	defer iv.mu.Unlock()
	return append([]*wamp.Invocation(nil), iv.list...)
}

// serve registers topic as a device function of in's device, answering
// with fn, and returns what it receives.
func serve(t *testing.T, w *agentWorld, in *Installation, topic string, fn func(*wamp.Invocation) client.InvokeResult) *invocations {
	t.Helper()
	c := worldtest.Connect(t, w.p, in, serialize.MSGPACK)
	iv := &invocations{}
	uri := wire.DeviceFunction(2, in.Device().Key(), 26, "DEV", topic)
	if err := c.Register(uri, func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
		iv.add(inv)
		return fn(inv)
	}, nil); err != nil {
		t.Fatalf("register %s: %v", uri, err)
	}
	return iv
}

func reply(args ...any) func(*wamp.Invocation) client.InvokeResult {
	return func(*wamp.Invocation) client.InvokeResult { return client.InvokeResult{Args: args} }
}

func TestCallToolConventions(t *testing.T) {
	w := newAgentWorld(t)
	iv := serve(t, w, w.in1, "read_temperature", reply(map[string]any{"celsius": 21.5}))
	ctx := worldtest.Ctx(t)
	args := map[string]any{"unit": "C", "sensor": "inlet"}
	for _, tc := range []struct {
		opts       []ToolOption
		wantArgs   wamp.List
		wantKwargs wamp.Dict
	}{
		{nil, wamp.List{}, wamp.Dict{"sensor": "inlet", "unit": "C"}},
		{[]ToolOption{Convention(ObjectArg)}, wamp.List{map[string]any{"sensor": "inlet", "unit": "C"}}, nil},
		{[]ToolOption{Convention(PositionalArgs)}, wamp.List{"inlet", "C"}, nil},
		{[]ToolOption{Convention(KeywordArgs), KeepDeviceKey()}, wamp.List{}, wamp.Dict{"sensor": "inlet", "unit": "C", "device_key": int64(42)}},
	} {
		call, err := w.p.CallTool(ctx, w.in1, "assistant", "read_temperature", args, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(map[string]any{"celsius": 21.5}, call.Result); d != "" {
			t.Errorf("result (-want +got):\n%s", d)
		}
		got := iv.all()[len(iv.all())-1]
		if d := cmp.Diff(tc.wantArgs, got.Arguments, cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%v: args (-want +got):\n%s", call.Convention, d)
		}
		if d := cmp.Diff(tc.wantKwargs, normalizeKw(got.ArgumentsKw), cmpopts.EquateEmpty()); d != "" {
			t.Errorf("%v: kwargs (-want +got):\n%s", call.Convention, d)
		}
	}
	want := ToolCall{Realm: "realm-2-26-dev", Agent: "assistant", Tool: "read_temperature", Topic: "read_temperature",
		Procedure: "2.42.26.DEV.read_temperature", DeviceKey: 42, Convention: PositionalArgs,
		Arguments: map[string]any{"sensor": "inlet", "unit": "C", "device_key": int64(42)}, Args: []any{"inlet", "C"},
		Result: map[string]any{"celsius": 21.5}}
	calls := w.p.ToolCalls()
	if len(calls) != 4 {
		t.Fatalf("%d calls recorded, want 4", len(calls))
	}
	if d := cmp.Diff(want, calls[2], cmpopts.IgnoreFields(ToolCall{}, "Time")); d != "" {
		t.Errorf("recorded call (-want +got):\n%s", d)
	}
	if calls[0].Time.IsZero() || calls[0].Convention.String() != "keyword" {
		t.Errorf("first call %+v", calls[0])
	}
	w.p.ClearToolCalls()
	if n := len(w.p.ToolCalls()); n != 0 {
		t.Errorf("%d calls after ClearToolCalls", n)
	}
}

// normalizeKw gives kwargs decoded by msgpack the types the test writes.
func normalizeKw(kw wamp.Dict) wamp.Dict {
	if kw == nil {
		return nil
	}
	out := wamp.Dict{}
	for k, v := range kw {
		if n, ok := wamp.AsInt64(v); ok {
			v = n
		}
		out[k] = v
	}
	return out
}

func TestCallToolPositionalGaps(t *testing.T) {
	w := newAgentWorld(t)
	iv := serve(t, w, w.in1, "read_temperature", reply())
	ctx := worldtest.Ctx(t)
	// Only the second parameter: the first travels as null; none: args [].
	for _, args := range []map[string]any{{"unit": "F"}, {}} {
		call, err := w.p.CallTool(ctx, w.in1, "", "read_temperature", args, Convention(PositionalArgs))
		if err != nil || call.Result != nil {
			t.Fatalf("%v: %+v %v", args, call, err)
		}
	}
	got := iv.all()
	if d := cmp.Diff(wamp.List{nil, "F"}, got[0].Arguments); d != "" {
		t.Errorf("gap (-want +got):\n%s", d)
	}
	if len(got[1].Arguments) != 0 {
		t.Errorf("no arguments: %v", got[1].Arguments)
	}
}

func TestCallToolAnswers(t *testing.T) {
	w := newAgentWorld(t)
	serve(t, w, w.in1, "read_temperature", func(inv *wamp.Invocation) client.InvokeResult {
		switch inv.ArgumentsKw["sensor"] {
		case "refuse":
			return client.InvokeResult{Err: wamp.URI(wire.ErrInvalidArgument), Args: wamp.List{`invalid arguments: parameter "sensor": unknown`}}
		case "many":
			return client.InvokeResult{Args: wamp.List{1, 2}}
		case "kw":
			return client.InvokeResult{Kwargs: wamp.Dict{"a": 1}}
		}
		return client.InvokeResult{Args: wamp.List{"x"}, Kwargs: wamp.Dict{"b": true}}
	})
	ctx := worldtest.Ctx(t)
	for _, tc := range []struct {
		sensor  string
		result  any
		uri     string
		message string
	}{
		{"refuse", nil, wire.ErrInvalidArgument, `invalid arguments: parameter "sensor": unknown`},
		{"many", []any{int64(1), int64(2)}, "", ""},
		{"kw", map[string]any{"a": int64(1)}, "", ""},
		{"both", map[string]any{"args": []any{"x"}, "kwargs": map[string]any{"b": true}}, "", ""},
	} {
		call, err := w.p.CallTool(ctx, w.in1, "assistant", "read_temperature", map[string]any{"sensor": tc.sensor})
		var te *ToolError
		if tc.uri != "" && (!errors.As(err, &te) || te.URI != tc.uri || te.Message != tc.message) {
			t.Errorf("%s: error %v, want %s %q", tc.sensor, err, tc.uri, tc.message)
		}
		if tc.uri == "" && err != nil {
			t.Errorf("%s: %v", tc.sensor, err)
		}
		if d := cmp.Diff(tc.result, call.Result); d != "" || call.Error != tc.uri || call.Message != tc.message {
			t.Errorf("%s: %+v (result -want +got):\n%s", tc.sensor, call, d)
		}
	}

	// No device serves the tool on device 43; device_key in the arguments
	// picks it.
	call, err := w.p.CallTool(ctx, w.in1, "assistant", "read_temperature", map[string]any{"sensor": "x", "device_key": 43})
	var te *ToolError
	if !errors.As(err, &te) || te.URI != wire.ErrNoSuchProcedure || call.Procedure != "2.43.26.DEV.read_temperature" {
		t.Errorf("other device: %+v %v", call, err)
	}
}

func TestCallToolCanceled(t *testing.T) {
	w := newAgentWorld(t)
	started := make(chan struct{})
	c := worldtest.Connect(t, w.p, w.in1, serialize.MSGPACK)
	if err := c.Register("2.42.26.DEV.read_temperature", func(ctx context.Context, _ *wamp.Invocation) client.InvokeResult {
		close(started)
		<-ctx.Done()
		return client.InvokeResult{Err: wamp.ErrCanceled}
	}, nil); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(worldtest.Ctx(t))
	go func() {
		<-started
		cancel()
	}()
	call, err := w.p.CallTool(ctx, w.in1, "assistant", "read_temperature", map[string]any{"sensor": "x"})
	if !errors.Is(err, context.Canceled) || call.Error != wire.ErrCanceled {
		t.Errorf("%+v %v", call, err)
	}
}

func TestRunAgentDelegateChain(t *testing.T) {
	w := newAgentWorld(t)
	serve(t, w, w.in1, "read_temperature", reply(21.5))
	iv := serve(t, w, w.in2, "maintenance.schedule", reply("booked"))
	run, err := w.p.RunAgent(worldtest.Ctx(t), w.in1, "", Script{
		"assistant": {
			UseTool("read_temperature", map[string]any{"sensor": "inlet"}),
			UseTool("ask_expert", map[string]any{"question": "service soon?"}),
			Answer("Service booked; 21.5 °C now."),
		},
		"expert": {
			UseTool("schedule", map[string]any{"days": 3, "device_key": 43}),
			Answer("booked in 3 days"),
		},
	}, Convention(ObjectArg))
	if err != nil {
		t.Fatal(err)
	}
	type step struct {
		Agent, Tool string
		Depth       int
		Result      any
		Device      int
	}
	var got []step
	for _, c := range run.Calls {
		got = append(got, step{c.Agent, c.Tool, c.Depth, c.Result, c.DeviceKey})
	}
	want := []step{
		{"assistant", "read_temperature", 0, 21.5, 42},
		{"expert", "schedule", 1, "booked", 43},
		{"assistant", "ask_expert", 0, "booked in 3 days", 0},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	if run.Agent != "assistant" || run.Answer != "Service booked; 21.5 °C now." || run.Stopped != "" {
		t.Errorf("run %+v", run)
	}
	if d := cmp.Diff(wamp.List{map[string]any{"days": int64(3)}}, normalizeList(iv.all()[0].Arguments)); d != "" {
		t.Errorf("schedule's payload (-want +got):\n%s", d)
	}
	if len(w.p.ToolCalls()) != 3 {
		t.Errorf("recorded %d calls", len(w.p.ToolCalls()))
	}
}

// normalizeList gives a positional object decoded by msgpack the types
// the test writes.
func normalizeList(l wamp.List) wamp.List {
	out := wamp.List{}
	for _, v := range l {
		if d, ok := wamp.AsDict(v); ok {
			v = map[string]any(normalizeKw(d))
		}
		out = append(out, v)
	}
	return out
}

func TestRunAgentMaxIterations(t *testing.T) {
	w := newAgentWorld(t)
	serve(t, w, w.in1, "read_temperature", reply(20))
	serve(t, w, w.in1, "maintenance.schedule", reply("ok"))
	read := UseTool("read_temperature", map[string]any{"sensor": "a"})
	schedule := UseTool("schedule", map[string]any{"days": 1})

	// The expert (max_iterations 2) tries a third call: stopped, its next
	// answer dropped; the assistant goes on and answers.
	run, err := w.p.RunAgent(worldtest.Ctx(t), w.in1, "assistant", Script{
		"assistant": {UseTool("ask_expert", nil), Answer("the expert did not answer")},
		"expert":    {schedule, schedule, schedule, Answer("never read")},
	})
	if err != nil {
		t.Fatal(err)
	}
	last := run.Calls[len(run.Calls)-1]
	if len(run.Calls) != 3 || last.Tool != "ask_expert" || last.Error != "max_iterations" ||
		last.Message != `agent "expert" reached max_iterations (2) without answering` || run.Answer != "the expert did not answer" {
		t.Errorf("expert stopped: %+v", run)
	}

	// The assistant itself (max_iterations 3): the run stops.
	run, err = w.p.RunAgent(worldtest.Ctx(t), w.in1, "", Script{"assistant": {read, read, read, read, Answer("never")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Calls) != 3 || run.Answer != "" || run.Stopped != `agent "assistant" reached max_iterations (3) without answering` {
		t.Errorf("assistant stopped: %+v", run)
	}
}

// startedPlatform is a platform made by Start, closed at the end of the
// test: its misuse panics instead of failing the test.
func startedPlatform(t *testing.T) *Platform {
	t.Helper()
	p, err := Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// panics runs f and returns what it panicked with, "" when it did not.
func panics(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}

func TestAgentMisuse(t *testing.T) {
	p := startedPlatform(t)
	app := p.AddAppWithAgents("bot", "", worldtest.AgentsYAML)
	plain := p.AddApp("plain", "")
	d := p.AddDevice("d")
	in, inPlain := p.Install(d, app, Dev), p.Install(d, plain, Dev)
	ctx := worldtest.Ctx(t)
	for _, tc := range []struct {
		name string
		f    func()
		want string
	}{
		{"invalid template", func() { p.AddAppWithAgents("bad", "", "a: 1\n") }, `app "bad": agent template: template: ai-template.yml is invalid`},
		{"no template", func() { _, _ = p.CallTool(ctx, inPlain, "", "read_temperature", nil) }, "the app has no agent template"},
		{"unknown agent", func() { _, _ = p.CallTool(ctx, in, "nobody", "x", nil) }, `unknown agent "nobody"; the agents are assistant, expert`},
		{"unknown tool", func() { _, _ = p.CallTool(ctx, in, "", "x", nil) }, `unknown tool "x" of agent "assistant"; its tools are ask_expert, read_temperature`},
		{"delegate", func() { _, _ = p.CallTool(ctx, in, "", "ask_expert", nil) }, `a delegate tool calls no device: tool "ask_expert"`},
		{"bad device_key", func() { _, _ = p.CallTool(ctx, in, "", "read_temperature", map[string]any{"device_key": "7"}) }, "device_key is 7"},
		{"not JSON", func() { _, _ = p.CallTool(ctx, in, "", "read_temperature", map[string]any{"c": make(chan int)}) }, "invalid tool arguments"},
		{"no target", func() { _, _ = p.CallTool(ctx, nil, "", "read_temperature", nil) }, "no target installation"},
		{"script ends", func() { _, _ = p.RunAgent(ctx, in, "", Script{"assistant": {UseTool("ask_expert", nil)}}) }, `agent "expert" has no turn left`},
		{"script agent", func() { _, _ = p.RunAgent(ctx, in, "", Script{"ghost": {Answer("")}}) }, `turns for agent "ghost"`},
	} {
		if got := panics(tc.f); !strings.Contains(got, tc.want) {
			t.Errorf("%s: panic %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestFlockdToolRoute(t *testing.T) {
	w := newAgentWorld(t)
	pr := w.in1.Device().Project()
	w.p.AddUser("alice", worldtest.AliceToken, map[*Project]string{pr: RoleAdmin})
	w.p.AddUser("bob", worldtest.BobToken, map[*Project]string{pr: RoleViewer})
	serve(t, w, w.in1, "read_temperature", func(inv *wamp.Invocation) client.InvokeResult {
		if len(inv.Arguments) == 2 {
			return client.InvokeResult{Args: wamp.List{fmt.Sprint(inv.Arguments...)}}
		}
		return client.InvokeResult{Err: wamp.URI(wire.ErrInvalidArgument), Args: wamp.List{"want positional"}}
	})
	const path = rest.FlockdPrefix + "/devices/42/apps/26/agents/assistant/tools/read_temperature"

	var ok rest.ToolCall
	worldtest.RESTOK(t, w.p, "POST", path, worldtest.AliceToken, `{"arguments":{"sensor":"inlet","unit":"C"},"convention":"positional"}`, 200, &ok)
	if !ok.OK || ok.Result != "inletC" || ok.Procedure != "2.42.26.DEV.read_temperature" || ok.Convention != "positional" || ok.Error != nil {
		t.Errorf("answer %+v", ok)
	}
	var refused rest.ToolCall
	a := worldtest.RESTOK(t, w.p, "POST", path+"?stage=DEV", worldtest.AliceToken, `{"arguments":{"sensor":"inlet","device_key":42}}`, 200, &refused)
	if refused.OK || refused.Result != nil || refused.Error == nil || refused.Error.URI != wire.ErrInvalidArgument || refused.Error.Message != "want positional" {
		t.Errorf("refusal %s", a.Body)
	}
	var raw map[string]any
	if err := json.Unmarshal(a.Body, &raw); err != nil || raw["kwargs"] == nil || raw["result"] != nil {
		t.Errorf("body %s", a.Body)
	}
	if n := len(w.p.ToolCalls()); n != 2 {
		t.Errorf("%d calls recorded", n)
	}

	for _, tc := range []struct {
		path, token, body string
		status            int
		code              string
	}{
		{path, "", `{}`, http.StatusUnauthorized, wire.CodeUnauthenticated},
		{path, worldtest.BobToken, `{}`, http.StatusForbidden, wire.CodeForbidden},
		{strings.Replace(path, "/42/", "/99/", 1), worldtest.AliceToken, `{}`, http.StatusNotFound, wire.CodeNotFound},
		{strings.Replace(path, "/26/", "/27/", 1), worldtest.AliceToken, `{}`, http.StatusNotFound, wire.CodeNotFound},
		{strings.Replace(path, "assistant", "ghost", 1), worldtest.AliceToken, `{}`, http.StatusNotFound, wire.CodeNotFound},
		{strings.Replace(path, "read_temperature", "ghost", 1), worldtest.AliceToken, `{}`, http.StatusNotFound, wire.CodeNotFound},
		{strings.Replace(path, "read_temperature", "ask_expert", 1), worldtest.AliceToken, `{}`, http.StatusUnprocessableEntity, wire.CodeValidation},
		{path + "?stage=PROD", worldtest.AliceToken, `{}`, http.StatusNotFound, wire.CodeNotFound},
		{path, worldtest.AliceToken, ``, http.StatusBadRequest, wire.CodeInvalidJSON},
		{path, worldtest.AliceToken, `{"arguments":[1]}`, http.StatusUnprocessableEntity, wire.CodeValidation},
		{path, worldtest.AliceToken, `{"convention":"sideways"}`, http.StatusUnprocessableEntity, wire.CodeValidation},
		{path, worldtest.AliceToken, `{"keep_device_key":"yes"}`, http.StatusUnprocessableEntity, wire.CodeValidation},
		{path, worldtest.AliceToken, `{"arguments":{"device_key":43}}`, http.StatusUnprocessableEntity, wire.CodeValidation},
		{path, worldtest.AliceToken, `{"other":1}`, http.StatusUnprocessableEntity, wire.CodeValidation},
		{rest.Prefix + "/devices/42/apps/26/agents/assistant/tools/read_temperature", worldtest.AliceToken, `{}`, http.StatusNotFound, wire.CodeNotFound},
	} {
		worldtest.CheckErrorAnswer(t, worldtest.RESTDo(t, w.p, "POST", tc.path, tc.token, tc.body), tc.status, tc.code)
	}
	worldtest.CheckErrorAnswer(t, worldtest.RESTDo(t, w.p, "GET", path, worldtest.AliceToken, ""), http.StatusMethodNotAllowed, wire.CodeMethodNotAllowed)
	if n := len(w.p.ToolCalls()); n != 2 {
		t.Errorf("%d calls recorded after refused requests", n)
	}
}
