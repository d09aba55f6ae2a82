// This file tests the two forms of a row's timestamps: the ISO 8601 text
// the platform sends (the seed: "tsp is an ISO-8601 timestamp") and the
// epoch milliseconds older platforms send, both read into time.Time (and
// msgpack's timestamp extension, which arrives as a time.Time).

package client_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
)

// tspRow is a row with its tsp as a time.Time and as a pointer.
type tspRow struct {
	Tsp         time.Time  `json:"tsp"`
	At          *time.Time `json:"tsp_ptr"`
	Temperature float64    `json:"temperature"`
}

// TestRowTimestampForms: history rows and realtime rows carry tsp as an
// ISO 8601 UTC text with milliseconds and Z, in msgpack and JSON alike;
// DecodeRows, Row.Decode and DecodeTime read it, and read epoch
// milliseconds (integer or float) into the same time.
func TestRowTimestampForms(t *testing.T) {
	at := time.Date(2026, 1, 1, 12, 30, 15, 250*int(time.Millisecond), time.UTC)
	for _, ser := range []client.Serializer{client.MsgPack, client.JSON} {
		t.Run(ser.String(), func(t *testing.T) {
			f := tableFleet(t)
			c := connect(t, f.a, client.WithSerializer(ser))
			ctx := ctxT(t)
			events := make(chan client.Row, 2)
			sub, err := c.SubscribeToTable(ctx, "sensordata", func(_ context.Context, ev *client.TableEvent) { events <- ev.Row })
			if err != nil {
				t.Fatal(err)
			}
			defer sub.Unsubscribe(ctx)
			// Inputs take both forms.
			if _, err := c.AppendToTable(ctx, "sensordata", client.Row{"tsp": at.UnixMilli(), "temperature": 1}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.AppendToTable(ctx, "sensordata", client.Row{"tsp": at.Add(time.Second), "temperature": 2}); err != nil {
				t.Fatal(err)
			}
			rows, err := c.GetHistory(ctx, "sensordata", nil)
			if err != nil {
				t.Fatal(err)
			}
			wire := []any{"2026-01-01T12:30:15.250Z", "2026-01-01T12:30:16.250Z"}
			var got []any
			for _, r := range rows {
				got = append(got, r["tsp"])
			}
			if diff := cmp.Diff(wire, got); diff != "" {
				t.Errorf("history tsp on the wire (-want +got):\n%s", diff)
			}
			for i, want := range wire {
				select {
				case ev := <-events:
					if ev["tsp"] != want {
						t.Errorf("event %d: tsp %#v, want %q", i, ev["tsp"], want)
					}
				case <-ctx.Done():
					t.Fatal("no event")
				}
			}

			// The same rows as a platform sending epoch milliseconds would.
			legacy := []client.Row{
				{"tsp": at.UnixMilli(), "tsp_ptr": float64(at.UnixMilli()), "temperature": int64(1)},
				{"tsp": at.Add(time.Second).UnixMilli(), "tsp_ptr": at.Add(time.Second).UnixMilli(), "temperature": int64(2)},
			}
			// And as msgpack's timestamp extension arrives: a time.Time.
			ext := []client.Row{
				{"tsp": at, "tsp_ptr": at.In(time.FixedZone("CET", 3600)), "temperature": int64(1)},
				{"tsp": at.Add(time.Second), "tsp_ptr": at.Add(time.Second), "temperature": 2.0},
			}
			for i := range rows {
				rows[i]["tsp_ptr"] = rows[i]["tsp"]
			}
			iso, err := client.DecodeRows[tspRow](rows)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := client.DecodeRows[tspRow](legacy)
			if err != nil {
				t.Fatal(err)
			}
			fromExt, err := client.DecodeRows[tspRow](ext)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range [][]tspRow{iso, ms, fromExt} {
				for j, row := range r {
					want := at.Add(time.Duration(j) * time.Second)
					if !row.Tsp.Equal(want) || row.At == nil || !row.At.Equal(want) || row.Temperature != float64(j+1) {
						t.Errorf("form %d row %d decoded as %+v, want tsp %v", i, j, row, want)
					}
				}
			}
			for _, r := range []client.Row{rows[0], legacy[0]} {
				var one tspRow
				if err := r.Decode(&one); err != nil || !one.Tsp.Equal(at) {
					t.Errorf("Row.Decode(%v) = %v, %v", r, one.Tsp, err)
				}
				if got, err := client.DecodeTime(r["tsp"], "tsp"); err != nil || !got.Equal(at) {
					t.Errorf("DecodeTime(%#v) = %v, %v", r["tsp"], got, err)
				}
			}
		})
	}
}
