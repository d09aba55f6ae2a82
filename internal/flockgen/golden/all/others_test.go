package all_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/crossapp"
	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/internal/flockgen/golden/all"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/typed"
)

// TestKwargsAndSecondArgument: the table events has a column in kwargs,
// one at args[1] and one in details; the typed append writes the first
// two where they belong, and bulk writes are refused before sending.
func TestKwargsAndSecondArgument(t *testing.T) {
	f := newFixture(t)
	events := all.NewEvents(f.c)
	if err := events.Append(f.ctx, all.EventsRow{Tsp: at(9, 0), Kind: typed.Ptr("start"), DeviceName: typed.Ptr("press one"), Note: typed.Ptr("cold start")}); err != nil {
		t.Fatal(err)
	}
	// Left nil, device_name comes from the device metadata the client adds.
	if err := events.Append(f.ctx, all.EventsRow{Tsp: at(9, 1), Kind: typed.Ptr("stop")}); err != nil {
		t.Fatal(err)
	}
	rows, err := events.History(f.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("rows: %+v", rows)
	}
	got := [][3]any{{*rows[0].Kind, *rows[0].DeviceName, *rows[0].Note}, {*rows[1].Kind, *rows[1].DeviceName, rows[1].Note}}
	want := [][3]any{{"start", "press one", "cold start"}, {"stop", "press-1", (*string)(nil)}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("kind, device_name, note (-want +got):\n%s", d)
	}
	f.p.ClearRecorded()
	if _, err := events.AppendRows(f.ctx, []all.EventsRow{{Tsp: at(9, 2)}}); !errors.Is(err, client.ErrInvalidArgument) || !strings.Contains(err.Error(), "args[1]") {
		t.Errorf("AppendRows: %v, want ErrInvalidArgument naming args[1]", err)
	}
	if n := len(f.p.Calls()); n != 0 {
		t.Errorf("sent %d calls", n)
	}
}

// TestGoKeywords: the table type with columns func, range and go.
func TestGoKeywords(t *testing.T) {
	f := newFixture(t)
	tb := all.NewType(f.c)
	if err := tb.Append(f.ctx, all.TypeRow{Tsp: at(9, 0), Func: typed.Ptr("f"), Range: typed.Ptr(2.5), Go: typed.Ptr(true)}); err != nil {
		t.Fatal(err)
	}
	rows, err := tb.History(f.ctx, &all.TypeQuery{Where: all.Type.Go.Eq(true).And(all.Type.Range.Gt(2))})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || *rows[0].Func != "f" {
		t.Errorf("rows: %+v", rows)
	}
}

// TestTransform reads the transform hourly through its read-only handle.
func TestTransform(t *testing.T) {
	f := newFixture(t)
	if err := f.p.SetTransformRows(f.inst.Realm(), "hourly", []map[string]any{
		{"hour": at(9, 0), "machine": "m1", "avg_temp": 21.5},
		{"hour": at(9, 0), "machine": "m2", "avg_temp": nil},
	}); err != nil {
		t.Fatal(err)
	}
	rows, err := all.NewHourly(f.c).History(f.ctx, &all.HourlyQuery{Where: all.Hourly.Machine.Eq("m1")})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || !rows[0].Hour.Equal(at(9, 0)) || *rows[0].AvgTemp != 21.5 {
		t.Errorf("rows: %+v", rows)
	}
}

// TestConsumedApp reads weather's shared table and transform through the
// generated read-only handles.
func TestConsumedApp(t *testing.T) {
	f := newFixture(t)
	station := clienttest.Start(t, f.station)
	if _, err := station.AppendRowsToTable(f.ctx, "readings", []map[string]any{
		{"tsp": at(6, 0), "station": "north", "celsius": 11.0, "api_key": "sk-up"},
		{"tsp": at(6, 10), "station": "south", "celsius": 14.5, "api_key": "sk-up"},
	}); err != nil {
		t.Fatal(err)
	}
	if err := f.p.SetTransformRows(f.station.Realm(), "daily", []map[string]any{{"day": at(0, 0), "station": "north", "max_celsius": 11.0}}); err != nil {
		t.Fatal(err)
	}
	p, err := crossapp.New(f.c).Connect(f.ctx, all.WeatherAppName)
	if err != nil {
		t.Fatal(err)
	}
	weather := all.NewWeatherApp(p)
	rows, err := weather.Readings.History(f.ctx, &all.WeatherReadingsQuery{Where: all.WeatherReadings.Celsius.Gt(12)})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || *rows[0].Station != "south" || !rows[0].Tsp.Equal(at(6, 10)) {
		t.Errorf("rows: %+v", rows)
	}
	maxC := all.WeatherReadings.Celsius.Max()
	series, err := weather.Readings.Series(f.ctx, all.WeatherReadingsSeriesQuery{Metrics: []typed.Measure[all.WeatherReadingsRow]{maxC}, Limit: 1,
		TimeRange: client.TimeRange{Start: at(6, 0), End: at(7, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := maxC.Of(series[0]); len(series) != 1 || !ok || v != 14.5 {
		t.Errorf("series: %+v", series)
	}
	daily, err := weather.Daily.History(f.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(daily) != 1 || *daily[0].MaxCelsius != 11 {
		t.Errorf("daily: %+v", daily)
	}
}

// TestFileNamespaces stores an object through the handle of the
// namespace firmware-images.
func TestFileNamespaces(t *testing.T) {
	f := newFixture(t)
	ns := all.NewFileNamespaces(files.New(f.c))
	if ns.FirmwareImages.Name() != all.NamespaceFirmwareImages || all.NamespaceFirmwareImages != "firmware-images" {
		t.Fatalf("namespace %q", ns.FirmwareImages.Name())
	}
	if _, err := ns.FirmwareImages.Put(f.ctx, "v2.bin", []byte{1, 2, 3}, files.ContentType("application/octet-stream")); err != nil {
		t.Fatal(err)
	}
	if b, ok := f.p.FileContent(f.inst.Realm(), "firmware-images", "v2.bin"); !ok || len(b) != 3 {
		t.Errorf("stored: %v %v", b, ok)
	}
	if ok, err := ns.Default.Exists(f.ctx, "v2.bin"); err != nil || ok {
		t.Errorf("in default: %v %v", ok, err)
	}
}

// TestAgentTools serves the tools with typed functions and calls them as
// the platform's agent runtime does, in every argument convention.
func TestAgentTools(t *testing.T) {
	f := newFixture(t)
	got := make(chan all.MachinesSetLimitsArgs, 4)
	svc, err := all.ServeAgentTools(f.ctx, f.c, all.AgentTools{
		ReadTemperature: func(_ context.Context, a all.ReadTemperatureArgs) (any, error) {
			unit := "C"
			if a.Unit != nil {
				unit = *a.Unit
			}
			return map[string]any{"machine": a.Machine, "unit": unit, "since": a.Since != nil}, nil
		},
		MachinesSetLimits: func(_ context.Context, a all.MachinesSetLimitsArgs) (any, error) {
			got <- a
			return "ok", nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Unregister(context.Background())
	for _, conv := range []platformtest.ArgConvention{platformtest.KeywordArgs, platformtest.ObjectArg, platformtest.PositionalArgs} {
		call, err := f.p.CallTool(f.ctx, f.inst, "", "read_temperature", map[string]any{"machine": "m1", "since": "2026-03-02T09:00:00Z"}, platformtest.Convention(conv))
		if err != nil {
			t.Fatalf("%v: %v", conv, err)
		}
		if d := cmp.Diff(map[string]any{"machine": "m1", "unit": "C", "since": true}, call.Result); d != "" {
			t.Errorf("%v: result (-want +got):\n%s", conv, d)
		}
	}
	if _, err := f.p.CallTool(f.ctx, f.inst, "", "set_limits", map[string]any{"machine": "m1", "limits": map[string]any{"high": 80.5, "hysteresis_ms": 500}, "tags": []any{"x"}}); err != nil {
		t.Fatal(err)
	}
	a := <-got
	if a.Machine != "m1" || a.Limits.High != 80.5 || a.Limits.Low != nil || *a.Limits.HysteresisMs != 500 || len(a.Tags) != 1 {
		t.Errorf("arguments: %+v", a)
	}
	// Invalid arguments never reach the function.
	_, err = f.p.CallTool(f.ctx, f.inst, "", "set_limits", map[string]any{"machine": "m1", "limits": map[string]any{"low": 1}})
	var te *platformtest.ToolError
	if !errors.As(err, &te) || !strings.Contains(te.Message, "high") {
		t.Errorf("missing limits.high: %v", err)
	}
	if len(got) != 0 {
		t.Errorf("the function ran with invalid arguments")
	}
}
