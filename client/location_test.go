// This file tests SetDeviceLocation: the stored position and the device
// record, the arguments refused before sending, and a platform without
// the location service.

package client_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/management"
	"github.com/flockgo/ironflock/platformtest"
)

// TestSetDeviceLocation: the platform stores the position of the
// client's own device, the management API's device record shows it, and
// the next update replaces it.
func TestSetDeviceLocation(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	if err := c.SetDeviceLocation(ctx, 8.68, 50.11); err != nil {
		t.Fatal(err)
	}
	calls := f.p.Calls()
	if len(calls) != 1 || calls[0].URI != "ironflock.location_service.update" {
		t.Fatalf("calls = %+v", calls)
	}
	if diff := cmp.Diff([]any{map[string]any{"long": 8.68, "lat": 50.11}}, calls[0].Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if calls[0].Kwargs["DEVICE_SERIAL_NUMBER"] != f.a.Device().Serial() {
		t.Errorf("metadata missing: %v", calls[0].Kwargs)
	}
	loc, ok := f.a.Device().Location()
	if !ok || loc.Long != 8.68 || loc.Lat != 50.11 {
		t.Fatalf("stored %+v (%v), want 8.68, 50.11", loc, ok)
	}
	if other, ok := f.b.Device().Location(); ok {
		t.Errorf("the other device moved to %+v", other)
	}

	f.p.AddUser("ops", "ops-token", map[*platformtest.Project]string{f.a.Device().Project(): platformtest.RoleViewer})
	dev, err := management.New(f.p.HTTPURL(), "ops-token").GetDevice(ctx, f.a.Device().Key())
	if err != nil {
		t.Fatal(err)
	}
	want := &management.Location{Long: 8.68, Lat: 50.11, UpdatedAt: loc.UpdatedAt.Truncate(time.Millisecond)}
	if diff := cmp.Diff(want, dev.Location); diff != "" {
		t.Errorf("device record (-want +got):\n%s", diff)
	}

	f.p.Clock().Advance(time.Minute)
	if err := c.SetDeviceLocation(ctx, -180, -90); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.a.Device().Location(); got.Long != -180 || got.Lat != -90 || !got.UpdatedAt.After(loc.UpdatedAt) {
		t.Errorf("after the second update: %+v", got)
	}
}

// TestSetDeviceLocationRefused: a position outside the ranges, NaN or
// infinite is refused before anything is sent, naming the field and the
// range, and the stored position stays.
func TestSetDeviceLocationRefused(t *testing.T) {
	f := newFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	if err := c.SetDeviceLocation(ctx, 180, 90); err != nil {
		t.Fatal(err)
	}
	stored, _ := f.a.Device().Location()
	sent := len(f.p.Calls())
	for _, tc := range []struct {
		long, lat float64
		want      string
	}{
		{180.000001, 0, "long"},
		{-181, 0, "long"},
		{math.NaN(), 0, "long"},
		{math.Inf(-1), 0, "long"},
		{0, 90.5, "lat"},
		{0, -90.000001, "lat"},
		{0, math.NaN(), "lat"},
		{0, math.Inf(1), "lat"},
	} {
		err := c.SetDeviceLocation(ctx, tc.long, tc.lat)
		if !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("(%v, %v): %v, want ErrInvalidArgument", tc.long, tc.lat, err)
			continue
		}
		rng := map[string]string{"long": "-180…180", "lat": "-90…90"}[tc.want]
		if msg := err.Error(); !strings.Contains(msg, "SetDeviceLocation") || !strings.Contains(msg, tc.want) || !strings.Contains(msg, rng) {
			t.Errorf("(%v, %v): %q does not name the operation, %s and %s", tc.long, tc.lat, msg, tc.want, rng)
		}
	}
	if n := len(f.p.Calls()); n != sent {
		t.Errorf("%d refused updates reached the platform", n-sent)
	}
	if got, _ := f.a.Device().Location(); got != stored {
		t.Errorf("stored %+v, was %+v", got, stored)
	}
}

// TestSetDeviceLocationNotServed: on a platform without the location
// service the update fails with wamp.error.no_such_procedure.
func TestSetDeviceLocationNotServed(t *testing.T) {
	p := platformtest.New(t, platformtest.WithoutLocationService())
	in := p.Install(p.AddDevice("d"), p.AddApp("a", ""), platformtest.Dev)
	c := connect(t, in)
	err := c.SetDeviceLocation(ctxT(t), 8.68, 50.11)
	var we *client.WampError
	if !errors.As(err, &we) || we.URI != "wamp.error.no_such_procedure" {
		t.Fatalf("err = %v, want a *WampError wamp.error.no_such_procedure", err)
	}
	if !strings.Contains(err.Error(), "SetDeviceLocation") || !strings.Contains(err.Error(), "ironflock.location_service.update") {
		t.Errorf("%q does not name the operation and the procedure", err)
	}
	if _, ok := in.Device().Location(); ok {
		t.Error("a location was stored")
	}
}
