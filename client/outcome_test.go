// This file tests what an operation reports when the connection ends
// around it: a request written before the link died has an unknown outcome
// and is never sent twice; one that never left the client is sent again
// on the next session by the operations with a reconnect window, and
// reported as not sent by the others.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// count returns how many recorded messages of kind went to uri.
func count(p *platformtest.Platform, kind platformtest.Kind, uri string) int {
	n := 0
	for _, m := range p.Recorded() {
		if m.Kind == kind && m.URI == uri {
			n++
		}
	}
	return n
}

// appendURI is the append procedure of table for inst.
func appendURI(inst *platformtest.Installation, table string) string {
	env := inst.Env()
	return fmt.Sprintf("append.%s.%s.%s", env["SWARM_KEY"], env["APP_KEY"], table)
}

// checkLost checks that err is the error of op on uri and matches want (and
// ErrConnectionLost) but not the other kind of loss.
func checkLost(t *testing.T, err error, op, uri string, want error) {
	t.Helper()
	other := client.ErrNotSent
	if want == client.ErrNotSent {
		other = client.ErrOutcomeUnknown
	}
	if !errors.Is(err, want) || !errors.Is(err, client.ErrConnectionLost) || errors.Is(err, other) {
		t.Fatalf("err = %v, want %v (and ErrConnectionLost)", err, want)
	}
	var oe *client.OpError
	if !errors.As(err, &oe) || oe.Op != op || oe.URI != uri {
		t.Errorf("err = %v does not name %s and %s", err, op, uri)
	}
}

func TestOutcomeUnknownWhenTheLinkDiesAfterTheWrite(t *testing.T) {
	cases := []struct {
		name, op string
		kind     platformtest.Kind
		uri      func(f *fleet) string
		run      func(ctx context.Context, c *client.Client, f *fleet) error
	}{
		{"Call", "Call", platformtest.KindCall, func(*fleet) string { return "com.example.held" },
			func(ctx context.Context, c *client.Client, _ *fleet) error {
				_, err := c.Call(ctx, "com.example.held", 1)
				return err
			}},
		{"Publish", "Publish", platformtest.KindPublish, func(*fleet) string { return "com.example.held" },
			func(ctx context.Context, c *client.Client, _ *fleet) error {
				return c.Publish(ctx, "com.example.held", 1)
			}},
		{"AppendToTable", "AppendToTable", platformtest.KindCall, func(f *fleet) string { return appendURI(f.a, "sensordata") },
			func(ctx context.Context, c *client.Client, _ *fleet) error {
				_, err := c.AppendToTable(ctx, "sensordata", sensorRow{Tsp: t0, Temperature: 1})
				return err
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := tableFleet(t)
			c := connect(t, f.a)
			ctx := ctxT(t)
			uri := tc.uri(f)
			// The router holds the request: it has left the client, and no
			// answer comes until the connection drops.
			held := f.p.Intercept(platformtest.Fault{Kind: tc.kind, URI: uri, Hang: true})
			defer held.Cancel()
			errc := make(chan error, 1)
			go func() { errc <- tc.run(ctx, c, f) }()
			if err := held.Wait(ctx, 1); err != nil {
				t.Fatal(err)
			}
			f.p.DropConnections()
			checkLost(t, <-errc, tc.op, uri, client.ErrOutcomeUnknown)
			// Never sent twice: once reconnected (a read waits for the
			// session), the router has still seen it once: the held one,
			// which the drop discarded. (The interception stays until the
			// end: cancelling it would let a held message go on.)
			if _, err := c.GetHistory(ctx, "sensordata", nil); err != nil {
				t.Fatal(err)
			}
			if n := count(f.p, tc.kind, uri); n != 1 {
				t.Errorf("%s sent %d times, want once", uri, n)
			}
			if rows := f.p.TableRows(f.a.Realm(), "sensordata"); len(rows) != 0 {
				t.Errorf("rows = %v: the held append was stored", rows)
			}
		})
	}
}

func TestNotSentIsSentAgainInTheWindow(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	topic := fmt.Sprintf("%s.%s.sensordata", f.a.Env()["SWARM_KEY"], f.a.Env()["APP_KEY"])

	// The link dies after the operation got its session and before the
	// write: the request goes out once, on the next session.
	client.CutNextSession(c)
	if _, err := c.AppendToTable(ctx, "sensordata", sensorRow{Tsp: t0, Temperature: 1}); err != nil {
		t.Fatalf("append cut before the write: %v", err)
	}
	client.CutNextSession(c)
	if err := c.PublishToTable(ctx, "sensordata", sensorRow{Tsp: t0.Add(time.Second), Temperature: 2}); err != nil {
		t.Fatalf("publish cut before the write: %v", err)
	}
	if n := count(f.p, platformtest.KindCall, appendURI(f.a, "sensordata")); n != 1 {
		t.Errorf("append sent %d times, want once", n)
	}
	if n := count(f.p, platformtest.KindPublish, topic); n != 1 {
		t.Errorf("publish sent %d times, want once", n)
	}
	if rows, err := c.GetHistory(ctx, "sensordata", &client.Query{FilterAnd: []client.Filter{client.Where("temperature", "=", 1)}}); err != nil || len(rows) != 1 {
		t.Errorf("the appended row: %v, %v", rows, err)
	}
}

func TestNotSentWithoutWindow(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a, client.WithReconnectWindow(0))
	ctx := ctxT(t)
	client.CutNextSession(c)
	_, err := c.Call(ctx, "com.example.p", 1)
	checkLost(t, err, "Call", "com.example.p", client.ErrNotSent)
	if !errors.Is(err, client.ErrCut) {
		t.Errorf("err = %v does not name why the connection ended", err)
	}
	client.CutNextSession(c)
	_, err = c.AppendToTable(ctx, "sensordata", sensorRow{Tsp: t0})
	checkLost(t, err, "AppendToTable", appendURI(f.a, "sensordata"), client.ErrNotSent)
	client.CutNextSession(c)
	checkLost(t, c.Publish(ctx, "com.example.t", 1), "Publish", "com.example.t", client.ErrNotSent)
	for _, m := range f.p.Recorded() {
		t.Errorf("a request that was not sent reached the router: %s %s", m.Kind, m.URI)
	}
}
