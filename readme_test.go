package ironflock_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// The code between "// README: …" and "// README end" is shown in
// README.md verbatim (without the indentation it has here), each region
// as one ```go block; TestREADME (readme_blocks_test.go) fails when a
// block of the README is not one of them, so that every Go block of the
// README compiles and runs with the suite.

// README: the device program
// Reading is a row of the table sensordata (the demo's columns).
type Reading struct {
	Tsp         time.Time `json:"tsp"`
	Temperature float64   `json:"temperature"`
}

// run is the device program; main calls it with context.Background().
// It stops on SIGINT or SIGTERM.
func run(ctx context.Context) error {
	c, err := client.New() // DEVICE_SERIAL_NUMBER, SWARM_KEY, APP_KEY, … from the device agent
	if err != nil {
		return err
	}
	return c.Run(ctx, func(ctx context.Context) error {
		if _, err := c.AppendToTable(ctx, "sensordata", Reading{Tsp: time.Now(), Temperature: 21.5}); err != nil {
			return err
		}
		if err := c.Publish(ctx, "com.example.readings", Reading{Tsp: time.Now(), Temperature: 21.5}); err != nil {
			return err
		}
		_, err := c.RegisterDeviceFunction(ctx, "calibrate", func(ctx context.Context, inv *client.Invocation) (any, error) {
			var offset float64
			if err := inv.Decode(&offset); err != nil {
				return nil, err
			}
			return Reading{Tsp: time.Now(), Temperature: 21.5 + offset}, nil
		})
		if err != nil {
			return err
		}
		<-ctx.Done() // serve until stopped
		return nil
	})
}

// README end

// README: calling another device
// calibrate calls the function "calibrate" of the device deviceKey, in the
// same app, and decodes its answer into a Reading. It waits up to 10 s for
// the function to be registered (the device may be reconnecting).
func calibrate(ctx context.Context, c *client.Client, deviceKey int, offset float64) (Reading, error) {
	var r Reading
	_, err := c.CallDeviceFunction(ctx, deviceKey, "calibrate", offset,
		client.Into(&r), client.WaitForRegistration(10*time.Second))
	return r, err
}

// README end

// README: reading a table
// warmReadings reads up to 100 rows of the last hour above 20 °C.
func warmReadings(ctx context.Context, c *client.Client) ([]Reading, error) {
	rows, err := c.GetHistory(ctx, "sensordata", &client.Query{
		Limit:     100,
		TimeRange: client.Since(time.Now().Add(-time.Hour)),
		FilterAnd: []client.Filter{client.Where("temperature", ">", 20)},
	})
	if err != nil {
		return nil, err
	}
	return client.DecodeRows[Reading](rows)
}

// README end

// README: the test
// dataTemplate is the app's .ironflock/data-template.yml.
const dataTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temperature, name: Temperature, dataType: numeric}
`

func TestReadings(t *testing.T) {
	p := platformtest.New(t, platformtest.WithStrictColumns()) // a key no column reads fails the test
	app := p.AddApp("my-app", dataTemplate)
	inst := p.Install(p.AddDevice("sensor-1"), app, platformtest.Dev)
	c := clienttest.Start(t, inst) // started; stopped when the test ends

	ctx := context.Background()
	for _, celsius := range []float64{21.5, 22} {
		if _, err := c.AppendToTable(ctx, "sensordata", Reading{Tsp: time.Now(), Temperature: celsius}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Publish(ctx, "com.example.readings", Reading{Tsp: time.Now(), Temperature: 22}); err != nil {
		t.Fatal(err)
	}

	// What landed, as the platform holds it: numbers as reads type them,
	// so a whole number is an int64.
	rows := p.TableRows(inst.Realm(), "sensordata")
	if len(rows) != 2 || rows[0]["temperature"] != 21.5 || rows[1]["temperature"] != int64(22) {
		t.Errorf("stored rows: %v", rows)
	}
	if pubs := p.Publications(); len(pubs) != 1 || pubs[0].URI != "com.example.readings" {
		t.Errorf("publications: %v", pubs)
	}
}

// README end

// TestREADMEDeviceProgram runs the README's device program with the
// environment of an installation, as the device agent would start it,
// and calls its function and reads its table as the README shows.
func TestREADMEDeviceProgram(t *testing.T) {
	p := platformtest.New(t, platformtest.WithStrictColumns())
	app := p.AddApp("my-app", dataTemplate)
	sensor := p.Install(p.AddDevice("sensor-1"), app, platformtest.Dev)
	for k, v := range sensor.Env() {
		t.Setenv(k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()

	gateway := clienttest.Start(t, p.Install(p.AddDevice("gateway-1"), app, platformtest.Dev))
	r, err := calibrate(ctx, gateway, sensor.Device().Key(), 0.5)
	if err != nil || r.Temperature != 22 || r.Tsp.IsZero() {
		t.Fatalf("calibrate: %+v, %v", r, err)
	}
	// The program appended and published before it registered calibrate.
	readings, err := warmReadings(ctx, gateway)
	if err != nil || len(readings) != 1 || readings[0].Temperature != 21.5 {
		t.Errorf("warmReadings: %+v, %v", readings, err)
	}
	if pubs := p.Publications(); len(pubs) != 1 || pubs[0].URI != "com.example.readings" {
		t.Errorf("publications: %v", pubs)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("run: %v", err)
	}
}

// README: hooks
// appendWatch counts the appends the platform acknowledged and those it
// refused; it implements client.HookAppend, one of the small hook
// interfaces client.WithHooks takes (docs/observability.md).
type appendWatch struct{ stored, refused atomic.Int64 }

func (w *appendWatch) OnAppend(ctx context.Context, op client.Op, out client.Outcome) {
	if out.Err != nil {
		w.refused.Add(1)
		return
	}
	w.stored.Add(1)
}

// README end

// TestREADMEHooks runs the README's hook: two appends are counted, one
// refused, and the client's Stats counts what went out.
func TestREADMEHooks(t *testing.T) {
	p := platformtest.New(t)
	inst := p.Install(p.AddDevice("sensor-1"), p.AddApp("my-app", dataTemplate), platformtest.Dev)
	for k, v := range inst.Env() {
		t.Setenv(k, v)
	}
	ctx := context.Background()
	var w appendWatch
	c, err := client.New(client.WithHooks(&w))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer c.Stop(ctx)
	for range 2 {
		if _, err := c.AppendToTable(ctx, "sensordata", Reading{Tsp: time.Now(), Temperature: 20}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.AppendToTable(ctx, "sensordata", map[string]any{"temperature": 1}); err == nil {
		t.Error("an append without tsp was stored")
	}
	if w.stored.Load() != 2 || w.refused.Load() != 1 {
		t.Errorf("hook counted %d stored, %d refused; want 2, 1", w.stored.Load(), w.refused.Load())
	}
	if st := c.Stats(); st.MessagesOut < 3 || st.BytesOut == 0 || st.Sessions != 1 {
		t.Errorf("Stats = %+v", st)
	}
}
