// This file holds one simulated device: an SDK client of its own (all of
// them in this process), its join, and its operations, each counted in
// the current stage's meter.

package main

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/client"
)

// device is one simulated device.
type device struct {
	info   deviceInfo
	c      *client.Client
	conn   *connHolder
	joined atomic.Bool    // Start has returned nil (the first join)
	busy   [3]atomic.Bool // per behaviour (append, publish, call): its operation waits for its answer
	target int            // the device key device.call calls

	seq   atomic.Int64 // appends made
	mu    sync.Mutex
	acked []int32 // the seq of every acknowledged append, when verifying
}

// discard is the devices' logger: thousands of clients logging every
// reconnect would drown the live line.
var discard = slog.New(slog.DiscardHandler)

// newDevice makes d's client (not started).
func newDevice(info deviceInfo, conn *connHolder) (*device, error) {
	d := &device{info: info, conn: conn}
	c, err := client.New(client.WithEnv(info.Env), client.WithDialer(conn.dial), client.WithLogger(discard))
	if err != nil {
		return nil, err
	}
	d.c = c
	return d, nil
}

// join starts d's client and registers its device function; it returns
// once joined or when ctx ends.
func (s *sim) join(ctx context.Context, d *device) {
	start := time.Now()
	if err := d.c.Start(ctx); err != nil {
		s.meter().fail("join", err)
		return
	}
	if topic := s.sc.Device.Subscribe; topic != "" {
		if !s.retry(ctx, "subscribe "+topic, func() error {
			_, err := d.c.Subscribe(ctx, topic, func(context.Context, *client.Event) { s.meter().events.Add(1) })
			return err
		}) {
			_ = d.c.Stop(context.Background())
			return
		}
	}
	if sv := s.sc.Device.Serve; sv != nil {
		if !s.retry(ctx, "register "+sv.Function, func() error {
			_, err := d.c.RegisterDeviceFunction(ctx, sv.Function, func(_ context.Context, inv *client.Invocation) (any, error) {
				s.meter().served.Add(1)
				if len(inv.Args) > 0 {
					return inv.Args[0], nil
				}
				return nil, nil
			})
			return err
		}) {
			_ = d.c.Stop(context.Background())
			return
		}
	}
	m := s.meter()
	m.joins.Add(1)
	m.joinLat.add(time.Since(start))
	d.joined.Store(true)
}

// retryEvery is the pause before a device tries a failed subscription or
// registration again.
const retryEvery = time.Second

// retry calls fn until it succeeds or ctx ends, counting each failure as
// op's; it reports whether fn succeeded. A device app whose subscription
// times out on a loaded router tries again; so does a simulated one.
func (s *sim) retry(ctx context.Context, op string, fn func() error) bool {
	for {
		err := fn()
		if err == nil {
			return true
		}
		s.meter().fail(op, err)
		select {
		case <-ctx.Done():
			return false
		case <-time.After(retryEvery):
		}
	}
}

// appendRow appends d's next row.
func (s *sim) appendRow(ctx context.Context, d *device) {
	a := s.sc.Device.Append
	n := d.seq.Add(1)
	row := make(map[string]any, len(s.gens))
	for col, g := range s.gens {
		switch g.kind {
		case "now":
			row[col] = time.Now().UTC()
		case "seq":
			row[col] = n
		case "device":
			row[col] = d.info.Name
		case "random":
			row[col] = g.min + rand.Float64()*(g.max-g.min)
		default:
			row[col] = g.value
		}
	}
	start := time.Now()
	_, err := d.c.AppendToTable(ctx, a.Table, row)
	m := s.meter()
	if err != nil {
		m.fail("append "+a.Table, err)
		return
	}
	m.ok(time.Since(start))
	m.appends.Add(1)
	s.appends.Add(1)
	if s.sc.Verify {
		d.mu.Lock()
		d.acked = append(d.acked, int32(n))
		d.mu.Unlock()
	}
}

// publish publishes an acknowledged event from d.
func (s *sim) publish(ctx context.Context, d *device) {
	p := s.sc.Device.Publish
	start := time.Now()
	err := d.c.Publish(ctx, p.Topic, d.info.Key, time.Now().UnixMilli())
	if err != nil {
		s.meter().fail("publish "+p.Topic, err)
		return
	}
	s.meter().ok(time.Since(start))
}

// call calls the device function of d's target.
func (s *sim) call(ctx context.Context, d *device) {
	c := s.sc.Device.Call
	start := time.Now()
	_, err := d.c.CallDeviceFunction(ctx, d.target, c.Function, d.info.Key)
	if err != nil {
		s.meter().fail("call "+c.Function, err)
		return
	}
	s.meter().ok(time.Since(start))
}
