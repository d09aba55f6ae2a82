// Command typed runs a device program written with the code flockgen
// generates from the app's templates (package fleet, from .ironflock/),
// against the embedded fake platform: it writes typed rows to the
// readings table (the vibration nested where the template's path says),
// follows them in realtime, reads them back with typed filters and a
// series, checks a secret column, stores a report in a file namespace and
// serves an agent tool with typed arguments.
//
//	go run ./examples/typed
//	go generate ./examples/typed   # after changing .ironflock/*.yml
package main

//go:generate go run ../../cmd/flockgen -o fleet/fleet.go .

import (
	"context"
	_ "embed"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/examples/typed/fleet"
	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/secrets"
	"github.com/flockgo/ironflock/typed"
)

// The app's templates, which the fake platform installs and flockgen
// generated package fleet from.
var (
	//go:embed .ironflock/data-template.yml
	dataTemplate string
	//go:embed .ironflock/ai-template.yml
	aiTemplate string
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "typed:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	p, err := platformtest.Start()
	if err != nil {
		return err
	}
	defer p.Close()
	inst := p.Install(p.AddDevice("press-line-1"), p.AddAppWithAgents("press-monitor", dataTemplate, aiTemplate), platformtest.Dev)
	c, err := client.New(client.WithEnv(inst.Env()))
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer c.Stop(context.Background())
	fmt.Fprintf(out, "press-line-1 joined %s\n", c.Identity().Realm())

	readings := fleet.NewReadings(c)

	// Follow new rows: the handler gets fleet.ReadingsRow values.
	seen := make(chan fleet.ReadingsRow, 16)
	sub, err := readings.Subscribe(ctx, func(_ context.Context, ev fleet.ReadingsEvent) {
		if ev.Err == nil {
			seen <- ev.Row
		}
	})
	if err != nil {
		return err
	}
	defer sub.Unsubscribe(context.Background())

	// An hour of readings of two presses, in one atomic insert. The
	// compiler checks every column name and type.
	start := time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)
	var rows []fleet.ReadingsRow
	for i := range 6 {
		press := []string{"p1", "p2"}[i%2]
		rows = append(rows, fleet.ReadingsRow{
			Tsp:          start.Add(time.Duration(i) * 10 * time.Minute),
			Press:        typed.Ptr(press),
			Temperature:  typed.Ptr(60 + 3*float64(i)),
			VibrationRMS: typed.Ptr(0.5 + 0.1*float64(i)),
			Strokes:      typed.Ptr(int64(1000 * (i + 1))),
			APIKey:       secrets.Set("key-" + press),
		})
	}
	n, err := readings.AppendRows(ctx, rows)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "stored    %d readings\n", n)
	for range rows {
		select {
		case <-seen:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	fmt.Fprintf(out, "realtime  saw %d new rows\n", len(rows))

	// What the platform stored: vibration_rms came from args[0].sensor.
	stored := p.TableRows(inst.Realm(), "readings")
	fmt.Fprintf(out, "platform  stored vibration_rms %v for the first row\n", stored[0]["vibration_rms"])

	// The latest reading per press, of those hotter than 65 °C.
	hot, err := readings.History(ctx, &fleet.ReadingsQuery{
		Where: fleet.Readings.Temperature.Gt(65).And(fleet.ReadingsLatest()),
	})
	if err != nil {
		return err
	}
	for _, r := range hot {
		fmt.Fprintf(out, "latest    %s %s %.0f °C, vibration %.1f mm/s, key %v\n",
			*r.Press, r.Tsp.Format("15:04"), *r.Temperature, *r.VibrationRMS, r.APIKey)
	}

	// Half-hour averages per press.
	avg := fleet.Readings.Temperature.Avg()
	series, err := readings.Series(ctx, fleet.ReadingsSeriesQuery{
		Metrics:   []typed.Measure[fleet.ReadingsRow]{avg},
		Limit:     10,
		TimeRange: client.TimeRange{Start: start, End: start.Add(time.Hour)},
		Bucket:    30 * time.Minute,
		GroupBy:   []typed.Group[fleet.ReadingsRow]{fleet.Readings.Press},
	})
	if err != nil {
		return err
	}
	for _, b := range series {
		press, _ := fleet.Readings.Press.Of(b)
		v, _ := avg.Of(b)
		fmt.Fprintf(out, "series    %s %s average %.1f °C\n", b.Tsp.Format("15:04"), press, v)
	}

	// The secret column: checked on the platform, never read back.
	res, err := readings.Verify(ctx, fleet.Readings.APIKey, "key-p1", &fleet.ReadingsQuery{Where: fleet.Readings.Press.Eq("p1")})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "secret    key-p1 matches p1's key: %v\n", res.Match)

	// A report in the namespace "reports" of the template.
	ns := fleet.NewFileNamespaces(files.New(c))
	if _, err := ns.Reports.Put(ctx, "2026-11-21.txt", []byte("all presses ok\n"), files.ContentType("text/plain")); err != nil {
		return err
	}
	fmt.Fprintf(out, "files     stored 2026-11-21.txt in namespace %s\n", fleet.NamespaceReports)

	// The agent tool press_status, with typed arguments.
	svc, err := fleet.ServeAgentTools(ctx, c, fleet.AgentTools{
		PressStatus: func(ctx context.Context, args fleet.PressStatusArgs) (any, error) {
			rows, err := readings.History(ctx, &fleet.ReadingsQuery{Where: fleet.Readings.Press.Eq(args.Press).And(fleet.ReadingsLatest())})
			if err != nil || len(rows) == 0 {
				return nil, err
			}
			return map[string]any{"press": args.Press, "temperature": *rows[0].Temperature}, nil
		},
	})
	if err != nil {
		return err
	}
	defer svc.Unregister(context.Background())
	call, err := p.CallTool(ctx, inst, "", "press_status", map[string]any{"press": "p2"})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "agent     press_status(p2) = %v\n", call.Result)
	return nil
}
