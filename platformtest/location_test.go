package platformtest

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestLocationUpdate: an update sets the position of the caller's device,
// named by its session, whatever the arguments and metadata say; a later
// update replaces it (no history); both wire codecs carry it.
func TestLocationUpdate(t *testing.T) {
	f := newFixture(t)
	if loc, ok := f.d1.Location(); ok {
		t.Fatalf("a new device has a location: %+v", loc)
	}
	c := worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
	before := f.p.Clock().Now()
	// The metadata and an extra key name the other device: they do not count.
	res, err := c.Call(worldtest.Ctx(t), wire.LocationProc, nil,
		wamp.List{map[string]any{"long": 8.68, "lat": 50.11, "device_key": int64(f.d2.Key())}},
		wamp.Dict{"DEVICE_KEY": "43", "DEVICE_SERIAL_NUMBER": f.d2.Serial()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	after := f.p.Clock().Now()
	if len(res.Arguments) != 0 || len(res.ArgumentsKw) != 0 {
		t.Errorf("answer %v %v, want none", res.Arguments, res.ArgumentsKw)
	}
	loc, ok := f.d1.Location()
	if !ok || loc.Long != 8.68 || loc.Lat != 50.11 || loc.UpdatedAt.Before(before) || loc.UpdatedAt.After(after) {
		t.Errorf("dev-1 at %+v (%v), want 8.68, 50.11 set between %v and %v", loc, ok, before, after)
	}
	if loc.UpdatedAt.Location() != time.UTC {
		t.Errorf("UpdatedAt %v is not in UTC", loc.UpdatedAt)
	}
	if loc, ok := f.d2.Location(); ok {
		t.Errorf("dev-2 moved to %+v", loc)
	}

	f.p.Clock().Advance(time.Hour)
	j := worldtest.Connect(t, f.p, f.in1, client.JSON)
	if _, err := j.Call(worldtest.Ctx(t), wire.LocationProc, nil, wamp.List{map[string]any{"long": -180, "lat": 90}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.d1.Location(); got.Long != -180 || got.Lat != 90 || !got.UpdatedAt.After(loc.UpdatedAt) {
		t.Errorf("after the second update: %+v, want -180, 90 set later than %v", got, loc.UpdatedAt)
	}
}

// TestLocationRefusals: a bad position is refused with invalid_argument
// naming the field and its range, and the stored position stays.
func TestLocationRefusals(t *testing.T) {
	f := newFixture(t)
	c := worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
	if _, err := c.Call(worldtest.Ctx(t), wire.LocationProc, nil, wamp.List{map[string]any{"long": 1.5, "lat": 2.5}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	stored, _ := f.d1.Location()
	for _, tc := range []struct {
		name string
		args wamp.List
		want string
	}{
		{"long out of range", wamp.List{map[string]any{"long": 180.01, "lat": 0.0}}, "args[0].long must be a number from -180 to 180, got 180.01"},
		{"lat out of range", wamp.List{map[string]any{"long": 0.0, "lat": -90.5}}, "args[0].lat must be a number from -90 to 90, got -90.5"},
		{"NaN", wamp.List{map[string]any{"long": math.NaN(), "lat": 0.0}}, "args[0].long must be a number from -180 to 180, got NaN"},
		{"missing", wamp.List{map[string]any{"long": 0.0}}, "args[0].lat must be a number from -90 to 90, got none"},
		{"not a number", wamp.List{map[string]any{"long": "east", "lat": 0.0}}, `args[0].long must be a number from -180 to 180, got the string "east"`},
		{"no arguments", nil, "args[0] must be an object"},
	} {
		_, err := c.Call(worldtest.Ctx(t), wire.LocationProc, nil, tc.args, nil, nil)
		var re client.RPCError
		if !errors.As(err, &re) || re.Err.Error != wire.ErrInvalidArgument {
			t.Errorf("%s: %v, want %s", tc.name, err, wire.ErrInvalidArgument)
			continue
		}
		if msg, _ := re.Err.Arguments[0].(string); !strings.HasPrefix(msg, wire.LocationProc+": ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: message %q, want %q", tc.name, msg, tc.want)
		}
	}
	if got, _ := f.d1.Location(); got != stored {
		t.Errorf("refused updates changed the position: %+v, was %+v", got, stored)
	}
}

// TestWithoutLocationService: a platform without the service answers
// no_such_procedure, as one without it would.
func TestWithoutLocationService(t *testing.T) {
	f := newFixture(t, WithoutLocationService())
	c := worldtest.JoinInstallation(t, f.p, f.in1, false)
	req := c.NewReq()
	msg := c.Answer(req, &wamp.Call{Request: req, Procedure: wire.LocationProc, Options: wamp.Dict{},
		Arguments: wamp.List{map[string]any{"long": 1.0, "lat": 2.0}}}).Msg
	if got := worldtest.ErrorURI(msg); got != wire.ErrNoSuchProcedure {
		t.Fatalf("location update: %q, want %s", got, wire.ErrNoSuchProcedure)
	}
	if loc, ok := f.d1.Location(); ok {
		t.Errorf("the device has a location: %+v", loc)
	}
}

// TestRESTDeviceLocation: the device record, one or in a list, under both
// prefixes, carries the location with updated_at in ISO UTC with
// milliseconds, or null before the first update.
func TestRESTDeviceLocation(t *testing.T) {
	p := New(t, WithStartTime(time.Date(2026, 3, 4, 5, 6, 7, 891234567, time.FixedZone("CET", 3600))))
	pr := p.AddProject("p", Key(1))
	p.AddUser("alice", worldtest.AliceToken, map[*Project]string{pr: RoleAdmin})
	d := pr.AddDevice("d", Key(1))
	pr.AddDevice("o", Key(2))
	in := p.Install(d, p.AddApp("a", ""), Dev)
	raw := func(path string) []map[string]any {
		t.Helper()
		a := worldtest.RESTOK(t, p, "GET", path, worldtest.AliceToken, "", 200, nil)
		var list []map[string]any
		if strings.HasSuffix(path, "/devices") {
			if err := json.Unmarshal(a.Body, &list); err != nil {
				t.Fatal(err)
			}
			return list
		}
		var one map[string]any
		if err := json.Unmarshal(a.Body, &one); err != nil {
			t.Fatal(err)
		}
		return []map[string]any{one}
	}
	for _, path := range []string{"/devices/1", "/devices", "/v1/ironflock/devices/1"} {
		for _, dev := range raw(path) {
			if loc, has := dev["location"]; !has || loc != nil {
				t.Errorf("GET %s: device %v location %v (present %v), want null", path, dev["device_key"], loc, has)
			}
		}
	}
	worldtest.SetLocation(t, p, in, 8.68, -50.5)
	stored, _ := d.Location()
	want := map[string]any{"long": 8.68, "lat": -50.5, "updated_at": stored.UpdatedAt.Format("2006-01-02T15:04:05.000Z")}
	if !strings.HasPrefix(want["updated_at"].(string), "2026-03-04T04:06:") {
		t.Fatalf("stored at %v", stored.UpdatedAt)
	}
	for _, path := range []string{"/devices/1", "/devices", "/v1/ironflock/devices", "/v1/ironflock/devices/1"} {
		for _, dev := range raw(path) {
			got := dev["location"]
			if dev["device_key"] == 2.0 {
				if got != nil {
					t.Errorf("GET %s: the other device has location %v", path, got)
				}
				continue
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("GET %s: location (-want +got):\n%s", path, diff)
			}
		}
	}
}

// TestLocationOfDeletedDevice: a session that outlived its device cannot
// set a position.
func TestLocationOfDeletedDevice(t *testing.T) {
	f := newFixture(t)
	c := worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
	f.p.reg.Do(func(s *registry.State) { s.DeleteDevice(f.d1.m) })
	_, err := c.Call(worldtest.Ctx(t), wire.LocationProc, nil, wamp.List{map[string]any{"long": 1.0, "lat": 2.0}}, nil, nil)
	var re client.RPCError
	if !errors.As(err, &re) || re.Err.Error != wire.ErrRuntimeError {
		t.Fatalf("%v, want %s", err, wire.ErrRuntimeError)
	}
	if msg, _ := re.Err.Arguments[0].(string); !strings.Contains(msg, f.d1.Serial()) || !strings.Contains(msg, "not registered") {
		t.Errorf("message %q", msg)
	}
}
