// This file holds the service: its attachment to a realm and the update
// procedure.

package location

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// The ranges of a position, in degrees, both ends included.
const (
	MaxLong = 180.0
	MaxLat  = 90.0
)

// Service is the location service of a platform.
type Service struct {
	reg *registry.Registry
}

// New returns the location service over reg, where positions are kept.
func New(reg *registry.Registry) *Service { return &Service{reg: reg} }

// Name returns "location".
func (*Service) Name() string { return "location" }

// Attach registers ironflock.location_service.update on a realm.
func (s *Service) Attach(h *realm.Host) error {
	return h.Register(wire.LocationProc, func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
		serial, _ := inv.Details["caller_authid"].(string)
		return s.update(serial, inv.Arguments)
	}, nil)
}

// update answers ironflock.location_service.update for the device with
// the given serial.
func (s *Service) update(serial string, args wamp.List) client.InvokeResult {
	long, lat, err := parse(args)
	if err != nil {
		return refusal(wire.ErrInvalidArgument, "%s: %v", wire.LocationProc, err)
	}
	var found bool
	s.reg.Do(func(st *registry.State) {
		if d := st.DeviceBySerial(serial); d != nil {
			st.SetLocation(d, long, lat)
			found = true
		}
	})
	if !found {
		return refusal(wire.ErrRuntimeError, "%s: the caller's device (serial %q) is not registered", wire.LocationProc, serial)
	}
	return client.InvokeResult{}
}

// parse reads the position of an update's arguments [{"long": x, "lat":
// y}]. Its error names every field that is wrong and its range.
func parse(args wamp.List) (long, lat float64, err error) {
	var m wamp.Dict
	if len(args) > 0 {
		m, _ = wamp.AsDict(args[0])
	}
	if m == nil {
		got := "no arguments"
		if len(args) > 0 {
			got = describe(args[0])
		}
		return 0, 0, fmt.Errorf(`args[0] must be an object {"long": -180…180, "lat": -90…90}, got %s`, got)
	}
	var problems []string
	long, p := coordinate(m, "long", MaxLong)
	if p != "" {
		problems = append(problems, p)
	}
	lat, p = coordinate(m, "lat", MaxLat)
	if p != "" {
		problems = append(problems, p)
	}
	if len(problems) > 0 {
		return 0, 0, errors.New(strings.Join(problems, "; "))
	}
	return long, lat, nil
}

// coordinate reads field of m, a number from -limit to limit; the problem
// is "" when it is one.
func coordinate(m wamp.Dict, field string, limit float64) (float64, string) {
	want := fmt.Sprintf("args[0].%s must be a number from %v to %v", field, -limit, limit)
	v, ok := m[field]
	if !ok {
		return 0, want + ", got none"
	}
	f, ok := wamp.AsFloat64(v)
	switch {
	case !ok:
		return 0, fmt.Sprintf("%s, got %s", want, describe(v))
	case math.IsNaN(f) || f < -limit || f > limit:
		return 0, fmt.Sprintf("%s, got %v", want, f)
	}
	return f, ""
}

// describe says what a value that is not the one wanted is.
func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprint(x)
	case []any, wamp.List:
		return "a list"
	case map[string]any, wamp.Dict:
		return "an object"
	}
	if f, ok := wamp.AsFloat64(v); ok {
		return fmt.Sprint(f)
	}
	return fmt.Sprintf("a %T", v)
}

func refusal(uri, format string, a ...any) client.InvokeResult {
	return client.InvokeResult{Err: wamp.URI(uri), Args: wamp.List{fmt.Sprintf(format, a...)}}
}
