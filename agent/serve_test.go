package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/agent"
	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// serveWeather serves the two weather tools; the forecast's arguments go
// to the returned channel.
func serveWeather(t *testing.T, w *weatherWorld, extra ...agent.Tool) (*agent.Service, <-chan forecastArgs) {
	t.Helper()
	got := make(chan forecastArgs, 16)
	tools := append([]agent.Tool{forecastTool(got), historyTool()}, extra...)
	svc, err := agent.Serve(testCtx(t), w.c, w.tpl, tools...)
	if err != nil {
		t.Fatal(err)
	}
	return svc, got
}

func TestConventionsReachTheTypedHandler(t *testing.T) {
	leakcheck.Check(t)
	w := newWeatherWorld(t)
	svc, got := serveWeather(t, w)
	if d := cmp.Diff([]string{"1.1.1.DEV.weather.forecast", "1.1.1.DEV.weather.history"}, svc.Procedures()); d != "" {
		t.Errorf("Procedures (-want +got):\n%s", d)
	}
	args := map[string]any{"city": "Oslo", "days": 2, "unit": "C"}
	for _, opts := range [][]platformtest.ToolOption{
		{platformtest.Convention(platformtest.KeywordArgs)},
		{platformtest.Convention(platformtest.ObjectArg)},
		{platformtest.Convention(platformtest.PositionalArgs)},
		{platformtest.Convention(platformtest.KeywordArgs), platformtest.KeepDeviceKey()},
		{platformtest.Convention(platformtest.ObjectArg), platformtest.KeepDeviceKey()},
	} {
		call, err := w.p.CallTool(testCtx(t), w.inst, "assistant", "forecast", args, opts...)
		if err != nil {
			t.Fatalf("%v: %v", call.Convention, err)
		}
		if d := cmp.Diff(forecastArgs{City: "Oslo", Days: 2, Unit: "C"}, <-got); d != "" {
			t.Errorf("%v: handler's arguments (-want +got):\n%s", call.Convention, d)
		}
		want := map[string]any{"city": "Oslo", "celsius": []any{20.0, 21.0}} // floats stay floats
		if d := cmp.Diff(want, call.Result); d != "" {
			t.Errorf("%v: result (-want +got):\n%s", call.Convention, d)
		}
	}
}

func TestSchemaRefusalsAreReadable(t *testing.T) {
	w := newWeatherWorld(t)
	_, got := serveWeather(t, w)
	for _, tc := range []struct {
		args map[string]any
		opts []platformtest.ToolOption
		want string
	}{
		{map[string]any{"days": 9, "unit": "K"}, nil,
			`invalid arguments: missing required parameter "city" (a string: The city to look up); parameter "days": maximum: got 9, want 7; parameter "unit": value must be one of 'C', 'F'`},
		{map[string]any{"city": 5, "days": 1, "when": "now"}, []platformtest.ToolOption{platformtest.Convention(platformtest.ObjectArg)},
			`invalid arguments: parameter "city": got number, want string; unknown parameter "when" (the parameters are city, days, unit)`},
		{map[string]any{"city": "Oslo"}, []platformtest.ToolOption{platformtest.Convention(platformtest.PositionalArgs)},
			`invalid arguments: missing required parameter "days" (an integer)`},
	} {
		call, err := w.p.CallTool(testCtx(t), w.inst, "assistant", "forecast", tc.args, tc.opts...)
		var te *platformtest.ToolError
		if !errors.As(err, &te) || te.URI != wire.ErrInvalidArgument || te.Message != tc.want {
			t.Errorf("%v: %v\nwant %s", tc.args, err, tc.want)
		}
		if call.Error != wire.ErrInvalidArgument {
			t.Errorf("recorded %+v", call)
		}
	}
	select {
	case a := <-got:
		t.Errorf("the handler ran with invalid arguments %+v", a)
	default:
	}
}

func TestUntypedTool(t *testing.T) {
	w := newWeatherWorld(t)
	seen := make(chan map[string]any, 1)
	history := agent.Untyped("weather.history", func(ctx context.Context, args map[string]any) (any, error) {
		seen <- args
		return client.Kwargs{"rows": len(args)}, nil
	})
	if _, err := agent.Serve(testCtx(t), w.c, w.tpl, forecastTool(nil), history); err != nil {
		t.Fatal(err)
	}
	call, err := w.p.CallTool(testCtx(t), w.inst, "archivist", "history",
		map[string]any{"city": "Oslo", "where": map[string]any{"lat": 59.9, "lon": 10.7}}, platformtest.KeepDeviceKey())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"city": "Oslo", "where": map[string]any{"lat": 59.9, "lon": 10.7}}
	if d := cmp.Diff(want, <-seen); d != "" {
		t.Errorf("arguments (-want +got):\n%s", d)
	}
	if d := cmp.Diff(map[string]any{"rows": int64(2)}, call.Result); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
}

func TestToolAnswers(t *testing.T) {
	w := newWeatherWorld(t)
	history := agent.Typed("weather.history", func(ctx context.Context, a historyArgs) (any, error) {
		switch a.City {
		case "nowhere":
			return nil, agent.InvalidArgument("city %q is unknown; try a capital", a.City)
		case "broken":
			return nil, errors.New("the station is offline")
		case "huge":
			return strings.Repeat("x", 200), nil
		}
		return a.Since, nil
	}, agent.MaxResultBytes(100))
	if _, err := agent.Serve(testCtx(t), w.c, w.tpl, forecastTool(nil), history); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		city, uri, msg string
	}{
		{"nowhere", wire.ErrInvalidArgument, `city "nowhere" is unknown; try a capital`},
		{"broken", wire.ErrRuntimeError, "the station is offline"},
		{"huge", wire.ErrRuntimeError, "result too large: 202 bytes of JSON, over the tool's limit of 100; ask for less (a narrower range, fewer items)"},
	} {
		_, err := w.p.CallTool(testCtx(t), w.inst, "archivist", "history", map[string]any{"city": tc.city})
		var te *platformtest.ToolError
		if !errors.As(err, &te) || te.URI != tc.uri || te.Message != tc.msg {
			t.Errorf("%s: %v, want %s %q", tc.city, err, tc.uri, tc.msg)
		}
	}
	call, err := w.p.CallTool(testCtx(t), w.inst, "archivist", "history", map[string]any{"city": "Oslo", "since": "2026-03-01T12:00:00Z"})
	if err != nil || call.Result != "2026-03-01T12:00:00Z" {
		t.Errorf("since: %+v %v", call, err)
	}
}

func TestServeRegistersNothingOnMismatch(t *testing.T) {
	w := newWeatherWorld(t)
	if _, err := agent.Serve(testCtx(t), w.c, w.tpl, forecastTool(nil)); !errors.Is(err, agent.ErrMismatch) {
		t.Fatalf("Serve: %v", err)
	}
	for _, m := range w.p.Recorded() {
		if m.Kind == platformtest.KindRegister {
			t.Errorf("registered %s", m.URI)
		}
	}
	_, err := agent.Serve(testCtx(t), nil, w.tpl)
	if !errors.Is(err, client.ErrInvalidArgument) || err.Error() != "agent: Serve: invalid argument: a client and a template are required" {
		t.Errorf("nil client: %v", err)
	}
}

func TestServeUndoesRegistrationsWhenOneFails(t *testing.T) {
	w := newWeatherWorld(t)
	w.p.Refuse(platformtest.Refusal{Kind: platformtest.KindRegister, URI: "1.1.1.DEV.weather.history", Times: 1})
	_, err := agent.Serve(testCtx(t), w.c, w.tpl, forecastTool(nil), historyTool())
	var oe *agent.OpError
	if !errors.As(err, &oe) || oe.Topic != "weather.history" || client.WampURI(err) != wire.ErrNotAuthorized {
		t.Fatalf("Serve: %v", err)
	}
	_, err = w.p.CallTool(testCtx(t), w.inst, "assistant", "forecast", map[string]any{"city": "Oslo", "days": 1})
	var te *platformtest.ToolError
	if !errors.As(err, &te) || te.URI != wire.ErrNoSuchProcedure {
		t.Errorf("forecast after the failed Serve: %v", err)
	}
	// Nothing is left registered: serving again works.
	if _, err := agent.Serve(testCtx(t), w.c, w.tpl, forecastTool(nil), historyTool()); err != nil {
		t.Errorf("Serve again: %v", err)
	}
}

func TestUnregister(t *testing.T) {
	w := newWeatherWorld(t)
	svc, _ := serveWeather(t, w)
	if err := svc.Unregister(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	_, err := w.p.CallTool(testCtx(t), w.inst, "assistant", "forecast", map[string]any{"city": "Oslo", "days": 1})
	var te *platformtest.ToolError
	if !errors.As(err, &te) || te.URI != wire.ErrNoSuchProcedure {
		t.Errorf("after Unregister: %v", err)
	}
}

func TestDelegateChain(t *testing.T) {
	w := newWeatherWorld(t)
	serveWeather(t, w)
	run, err := w.p.RunAgent(testCtx(t), w.inst, "", platformtest.Script{
		"assistant": {
			platformtest.UseTool("forecast", map[string]any{"city": "Oslo", "days": 1}),
			platformtest.UseTool("ask_archive", map[string]any{"question": "Which stations?"}),
			platformtest.Answer("20 °C tomorrow; stations a and b."),
		},
		"archivist": {
			platformtest.UseTool("history", map[string]any{"city": "Oslo", "stations": []string{"a", "b"}}),
			platformtest.Answer("a and b"),
		},
	}, platformtest.Convention(platformtest.PositionalArgs))
	if err != nil {
		t.Fatal(err)
	}
	var steps []string
	for _, c := range run.Calls {
		steps = append(steps, c.Agent+"/"+c.Tool+" → "+strings.ReplaceAll(fmtResult(c.Result), "\n", ""))
	}
	want := []string{
		`assistant/forecast → {"celsius":[20],"city":"Oslo"}`,
		`archivist/history → ["a","b"]`,
		`assistant/ask_archive → "a and b"`,
	}
	if d := cmp.Diff(want, steps); d != "" {
		t.Errorf("calls (-want +got):\n%s", d)
	}
	if run.Answer != "20 °C tomorrow; stations a and b." {
		t.Errorf("answer %q", run.Answer)
	}
}
