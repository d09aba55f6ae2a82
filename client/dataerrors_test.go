package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/client"
)

// TestSubscribeToDataErrors: refused appends and publications of any
// device of the app arrive typed, per table or for every table; accepted
// writes are not reported; the subscription survives a reconnect; bad
// arguments are refused before anything is sent.
func TestSubscribeToDataErrors(t *testing.T) {
	f := tableFleet(t)
	st := newStates()
	c := connect(t, f.a, st.option())
	wst := newStates()
	writer := connect(t, f.b, wst.option())
	ctx := ctxT(t)
	one := make(chan *client.DataError, 8)
	every := make(chan *client.DataError, 8)
	if _, err := c.SubscribeToDataErrors(ctx, "machines", func(_ context.Context, e *client.DataError) { one <- e }); err != nil {
		t.Fatal(err)
	}
	sub, err := c.SubscribeToDataErrors(ctx, "", func(_ context.Context, e *client.DataError) { every <- e })
	if err != nil {
		t.Fatal(err)
	}
	next := func(ch <-chan *client.DataError, what string) *client.DataError {
		t.Helper()
		select {
		case e := <-ch:
			return e
		case <-ctx.Done():
			t.Fatalf("no report: %s", what)
			return nil
		}
	}
	before := f.p.Clock().Now().Add(-time.Millisecond)
	row := client.Row{"tsp": t0, "machine": "m1", "state": "on"}
	if _, err := writer.AppendToTable(ctx, "machines", row); err != nil {
		t.Fatal(err)
	}
	_, err = writer.AppendToTable(ctx, "machines", row)
	if client.WampURI(err) != "sys.dataservice.error.entity_key_conflict" {
		t.Fatalf("second append: %v", err)
	}
	want := &client.DataError{Table: "machines", Operation: client.DataErrorAppend, URI: client.WampURI(err),
		DeviceKey: int64(f.b.Device().Key()), AuthID: f.b.Device().Serial(), Rows: 1}
	ignore := cmpopts.IgnoreFields(client.DataError{}, "Time", "Message")
	for _, ch := range []chan *client.DataError{one, every} {
		got := next(ch, "conflict")
		if diff := cmp.Diff(want, got, ignore); diff != "" {
			t.Errorf("conflict (-want +got):\n%s", diff)
		}
		if got.Time.Before(before) || got.Time.After(f.p.Clock().Now()) || got.Message == "" {
			t.Errorf("conflict reported at %v with %q", got.Time, got.Message)
		}
	}
	// A bulk publication to another table: only the subscription of every
	// table gets it.
	if err := writer.PublishRowsToTable(ctx, "sensordata", []client.Row{{"tsp": t0}, {"temperature": 1}}); err != nil {
		t.Fatal(err)
	}
	got := next(every, "bulk publication")
	if got.Table != "sensordata" || got.Operation != client.DataErrorPublishBulk || got.URI != "wamp.error.runtime_error" || got.Rows != 2 {
		t.Errorf("bulk publication reported as %+v", got)
	}

	// After a reconnect the subscription is restored (before the state is
	// connected again).
	f.p.DropConnections()
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateConnected, 10*time.Second)
	wst.await(t, client.StateReconnecting, 10*time.Second)
	wst.await(t, client.StateConnected, 10*time.Second)
	if err := writer.PublishToTable(ctx, "sensordata", client.Row{"temperature": 2}); err != nil {
		t.Fatal(err)
	}
	got = next(every, "after the reconnect")
	if got.Operation != client.DataErrorPublish || got.Rows != 1 {
		t.Errorf("after the reconnect: %+v", got)
	}
	if err := sub.Unsubscribe(ctx); err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		name  string
		table string
		h     client.DataErrorHandler
		opts  []client.SubscribeOption
	}{
		{"nil handler", "machines", nil, nil},
		{"blank table", " machines", func(context.Context, *client.DataError) {}, nil},
		{"match policy", "machines", func(context.Context, *client.DataError) {}, []client.SubscribeOption{client.Match(client.MatchPrefix)}},
	} {
		if _, err := c.SubscribeToDataErrors(ctx, tc.table, tc.h, tc.opts...); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", tc.name, err)
		}
	}
}
