//go:build unix

package platformtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/gammazero/nexus/v3/client"
)

// BenchmarkJoinFleet times joins (a device's link opened, authenticated,
// closed) with 1,000 and with 100,000 devices configured, each with an
// installation: the authentication looks the device up by serial in an
// index, so a join costs the same whatever the fleet (issue 37 wants the
// CPU of a join with 100,000 at most 1.2 times that with 1,000). It
// reports the process's CPU per join (cpu_ns/join, the platform's and the
// client's) beside the wall time.
func BenchmarkJoinFleet(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		b.Run(fmtDevices(n), func(b *testing.B) {
			p, err := Start(WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))), WithoutRecording())
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			res, err := p.Reconcile(fleetSeed(n))
			if err != nil {
				b.Fatal(err)
			}
			ins := res.Installations
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			i := 0
			cpu0 := processCPU()
			b.ResetTimer()
			for b.Loop() {
				in := ins[(i*7919)%len(ins)] // spread over the fleet
				i++
				id, secret := in.Credentials()
				c, err := client.ConnectNet(ctx, p.URL(), worldtest.DialConfig(in.Realm(), id, secret, client.MSGPACK))
				if err != nil {
					b.Fatal(err)
				}
				_ = c.Close()
			}
			b.StopTimer()
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu_ns/join")
		})
	}
}

func fmtDevices(n int) string { return fmt.Sprintf("devices=%dk", n/1000) }
