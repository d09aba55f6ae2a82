// This file checks the exact messages the SDK puts on the wire against
// golden values.

package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// golden is a message the SDK must put on the wire, exactly.
type golden struct {
	Kind    string
	URI     string
	Args    []any
	Kwargs  map[string]any
	Options map[string]any
}

// TestGoldenPayloads checks the exact payload of every operation against
// docs/wire.md §7 (URIs, argument shapes, metadata, options). Answers do not
// matter here: the messages are taken from the platform's recording.
func TestGoldenPayloads(t *testing.T) {
	p := platformtest.New(t)
	app := p.AddApp("interop", "", platformtest.Key(26))
	dev := p.AddDevice("pump-7", platformtest.Key(42), platformtest.Serial("06a0bf96-a539-4d6a-8471-ac7adc67616e"), platformtest.InProject(p.AddProject("harness", platformtest.Key(2))))
	inst := p.Install(dev, app, platformtest.Dev)
	c := connect(t, inst, client.WithReconnectWindow(0))
	meta := map[string]any{"DEVICE_SERIAL_NUMBER": "06a0bf96-a539-4d6a-8471-ac7adc67616e", "DEVICE_KEY": "42", "DEVICE_NAME": "pump-7"}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range meta {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tsp := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type row struct {
		Tsp         time.Time `json:"tsp"`
		Temperature float64   `json:"temperature"`
	}
	ack := map[string]any{"acknowledge": true}
	progress := map[string]any{"receive_progress": true}
	cases := []struct {
		name string
		op   func(ctx context.Context) error
		want golden
	}{
		{"PublishToTable", func(ctx context.Context) error {
			return c.PublishToTable(ctx, " sensordata ", row{Tsp: tsp, Temperature: 21}, client.Kwargs{"note": "x"})
		}, golden{"publish", "2.26.sensordata", []any{map[string]any{"tsp": "2026-01-01T00:00:00Z", "temperature": 21.0}}, with("note", "x"), ack}},
		{"PublishRowsToTable", func(ctx context.Context) error {
			return c.PublishRowsToTable(ctx, "sensordata", []row{{tsp, 1.5}, {tsp.Add(time.Second), 2}})
		}, golden{"publish", "bulk.2.26.sensordata", []any{[]any{
			map[string]any{"tsp": "2026-01-01T00:00:00Z", "temperature": 1.5},
			map[string]any{"tsp": "2026-01-01T00:00:01Z", "temperature": 2.0},
		}}, with(), ack}},
		{"AppendToTable", func(ctx context.Context) error {
			_, err := c.AppendToTable(ctx, "sensordata", map[string]any{"tsp": tsp, "n": 3})
			return err
		}, golden{"call", "append.2.26.sensordata", []any{map[string]any{"tsp": "2026-01-01T00:00:00Z", "n": int64(3)}}, with(), map[string]any{}}},
		{"AppendRowsToTable", func(ctx context.Context) error {
			_, err := c.AppendRowsToTable(ctx, "sensordata", []map[string]any{{"tsp": tsp}}, client.Kwargs{"batch": "b1"})
			return err
		}, golden{"call", "appendBulk.2.26.sensordata", []any{[]any{map[string]any{"tsp": "2026-01-01T00:00:00Z"}}}, with("batch", "b1"), map[string]any{}}},
		{"ReportError", func(ctx context.Context) error {
			_, err := c.ReportError(ctx, errors.New("pump stalled"), client.ErrorLevel(client.LevelWarn), client.ReportedAt(tsp))
			return err
		}, golden{"publish", "2.26.error-logs", []any{map[string]any{
			"tsp": "2026-01-01T00:00:00.000Z", "msg": "pump stalled", "user_message": "pump stalled", "source": "app", "level": "warn",
		}}, with(), ack}},
		{"ReportError append", func(ctx context.Context) error {
			_, err := c.ReportError(ctx, "disk low", client.AppendReport(), client.UserMessage("Storage is almost full"), client.ReportedAt(tsp))
			return err
		}, golden{"call", "append.2.26.error-logs", []any{map[string]any{
			"tsp": "2026-01-01T00:00:00.000Z", "msg": "disk low", "user_message": "Storage is almost full", "source": "app", "level": "error",
		}}, with(), map[string]any{}}},
		{"GetHistory default", func(ctx context.Context) error {
			_, err := c.GetHistory(ctx, "sensordata", nil)
			return err
		}, golden{"call", "history.transformed.sensordata", []any{map[string]any{"limit": int64(10), "offset": int64(0)}}, nil, progress}},
		{"GetHistory worked example", func(ctx context.Context) error {
			_, err := c.GetHistory(ctx, "sensordata", &client.Query{Limit: 5, Offset: 2,
				TimeRange: &client.TimeRange{Start: "2026-01-01T00:00:00Z"},
				FilterAnd: []client.Filter{client.Where("temperature", ">", 20), client.Latest()},
				Columns:   []string{"temperature"}})
			return err
		}, golden{"call", "history.transformed.sensordata", []any{map[string]any{
			"limit": int64(5), "offset": int64(2), "timeRange": []any{"2026-01-01T00:00:00Z", nil},
			"filterAnd": []any{map[string]any{"column": "temperature", "operator": ">", "value": int64(20)}, map[string]any{"latest": true}},
			"columns":   []any{"temperature"},
		}}, nil, progress}},
		{"GetHistory IS filters", func(ctx context.Context) error {
			_, err := c.GetHistory(ctx, "sensordata", &client.Query{FilterAnd: []client.Filter{
				client.Where("ok", "IS", true), client.Where("ok", "IS NOT", false), client.Where("note", "IS", nil), client.IsNotNull("note"),
			}})
			return err
		}, golden{"call", "history.transformed.sensordata", []any{map[string]any{
			"limit": int64(10), "offset": int64(0),
			"filterAnd": []any{
				map[string]any{"column": "ok", "operator": "IS", "value": true},
				map[string]any{"column": "ok", "operator": "IS NOT", "value": false},
				map[string]any{"column": "note", "operator": "IS NULL"},
				map[string]any{"column": "note", "operator": "IS NOT NULL"},
			},
		}}, nil, progress}},
		{"GetSeriesHistory", func(ctx context.Context) error {
			_, err := c.GetSeriesHistory(ctx, "sensordata", client.SeriesQuery{Columns: []string{"temperature"}, Method: client.AVG, Limit: 100,
				TimeRange: client.TimeRange{Start: "2026-01-01T00:00:00Z", End: "2026-02-01T00:00:00Z"}, GroupBy: []string{"device_key"}})
			return err
		}, golden{"call", "history.transformed.series.sensordata", []any{map[string]any{
			"metrics": []any{map[string]any{"ref": "temperature", "method": "AVG"}}, "limit": int64(100),
			"timeRange": []any{"2026-01-01T00:00:00Z", "2026-02-01T00:00:00Z"}, "groupBy": []any{"device_key"},
		}}, nil, progress}},
		{"SetDeviceLocation", func(ctx context.Context) error {
			return c.SetDeviceLocation(ctx, 8.5, 50)
		}, golden{"call", "ironflock.location_service.update", []any{map[string]any{"long": 8.5, "lat": 50.0}}, with(), map[string]any{}}},
		{"Publish without metadata", func(ctx context.Context) error {
			return c.Publish(ctx, "com.example.raw", 1, client.Kwargs{"k": "v"}, client.NoMetadata())
		}, golden{"publish", "com.example.raw", []any{int64(1)}, map[string]any{"k": "v"}, ack}},
		{"CallDeviceFunction", func(ctx context.Context) error {
			_, err := c.CallDeviceFunction(ctx, 7, "reset", 1, client.Kwargs{"hard": true})
			return err
		}, golden{"call", "2.7.26.DEV.reset", []any{int64(1)}, map[string]any{"hard": true}, map[string]any{}}},
		{"RegisterDeviceFunction", func(ctx context.Context) error {
			_, err := c.RegisterDeviceFunction(ctx, "reset", func(context.Context, *client.Invocation) (any, error) { return nil, nil })
			return err
		}, golden{"register", "2.42.26.DEV.reset", nil, nil, map[string]any{"force_reregister": true}}},
		{"RegisterProcedure", func(ctx context.Context) error {
			_, err := c.RegisterProcedure(ctx, "2.42.26.DEV.tool", func(context.Context, *client.Invocation) (any, error) { return nil, nil })
			return err
		}, golden{"register", "2.42.26.DEV.tool", nil, nil, map[string]any{}}},
		{"Subscribe", func(ctx context.Context) error {
			_, err := c.Subscribe(ctx, "com.example.alarms", func(context.Context, *client.Event) {})
			return err
		}, golden{"subscribe", "com.example.alarms", nil, nil, map[string]any{}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p.ClearRecorded()
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			_ = tc.op(ctx) // the fake may refuse; only the payload matters
			var got []golden
			for _, m := range p.Recorded() {
				if m.URI == "history.transformed.error-logs" {
					continue // the backend probe of an unknown table
				}
				got = append(got, golden{string(m.Kind), m.URI, m.Args, m.Kwargs, m.Options})
			}
			if len(got) == 0 {
				t.Fatal("nothing recorded")
			}
			if diff := cmp.Diff(tc.want, got[0], cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("payload (-want +got):\n%s", diff)
			}
		})
	}
	// SubscribeToTable subscribes both feeds with exact matching.
	p.ClearRecorded()
	if _, err := c.SubscribeToTable(ctxT(t), "sensordata", func(context.Context, *client.TableEvent) {}); err != nil {
		t.Fatal(err)
	}
	var topics []string
	for _, m := range p.Recorded() {
		if m.Kind != "subscribe" || len(m.Options) != 0 {
			t.Errorf("unexpected %s %s options %v", m.Kind, m.URI, m.Options)
		}
		topics = append(topics, m.URI)
	}
	if diff := cmp.Diff([]string{"transformed.sensordata", "transformed.bulk.sensordata"}, topics); diff != "" {
		t.Errorf("table subscription (-want +got):\n%s", diff)
	}
}
