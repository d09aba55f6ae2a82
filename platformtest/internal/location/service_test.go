package location

import (
	"math"
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
)

// TestParse: a position inside the ranges (both ends included) in any
// numeric type is read; everything else is refused with a message naming
// the field and its range.
func TestParse(t *testing.T) {
	pos := func(long, lat any) wamp.List { return wamp.List{map[string]any{"long": long, "lat": lat}} }
	for _, tc := range []struct {
		name      string
		args      wamp.List
		long, lat float64
	}{
		{"floats", pos(8.68, 50.11), 8.68, 50.11},
		{"lower ends", pos(-180.0, -90.0), -180, -90},
		{"upper ends", pos(180.0, 90.0), 180, 90},
		{"msgpack integers", pos(int64(-7), uint64(3)), -7, 3},
		{"float32", pos(float32(1.5), float32(-2.5)), 1.5, -2.5},
		{"wamp.Dict and extra keys", wamp.List{wamp.Dict{"long": 1.0, "lat": 2.0, "device_key": 99}}, 1, 2},
	} {
		long, lat, err := parse(tc.args)
		if err != nil || long != tc.long || lat != tc.lat {
			t.Errorf("%s: %v, %v, %v; want %v, %v", tc.name, long, lat, err, tc.long, tc.lat)
		}
	}
	for _, tc := range []struct {
		name string
		args wamp.List
		want []string
	}{
		{"no arguments", nil, []string{`args[0] must be an object {"long": -180…180, "lat": -90…90}, got no arguments`}},
		{"a list", wamp.List{wamp.List{1.0, 2.0}}, []string{"args[0] must be an object", "got a list"}},
		{"a number", wamp.List{8.5, 50.0}, []string{"args[0] must be an object", "got 8.5"}},
		{"long above", pos(180.5, 0.0), []string{"args[0].long must be a number from -180 to 180, got 180.5"}},
		{"long below", pos(-181.0, 0.0), []string{"args[0].long must be a number from -180 to 180, got -181"}},
		{"lat above", pos(0.0, 90.0001), []string{"args[0].lat must be a number from -90 to 90, got 90.0001"}},
		{"lat below", pos(0.0, int64(-91)), []string{"args[0].lat must be a number from -90 to 90, got -91"}},
		{"NaN", pos(math.NaN(), 0.0), []string{"args[0].long must be a number from -180 to 180, got NaN"}},
		{"infinity", pos(0.0, math.Inf(1)), []string{"args[0].lat must be a number from -90 to 90, got +Inf"}},
		{"string", pos("8.5", 1.0), []string{`args[0].long must be a number from -180 to 180, got the string "8.5"`}},
		{"bool", pos(1.0, true), []string{"args[0].lat must be a number from -90 to 90, got true"}},
		{"null", pos(nil, 1.0), []string{"args[0].long must be a number from -180 to 180, got null"}},
		{"object", pos(map[string]any{}, 1.0), []string{"args[0].long must be a number from -180 to 180, got an object"}},
		{"missing lat", wamp.List{map[string]any{"long": 1.0}}, []string{"args[0].lat must be a number from -90 to 90, got none"}},
		{"both wrong", wamp.List{map[string]any{"longitude": 1.0, "lat": 100.0}}, []string{
			"args[0].long must be a number from -180 to 180, got none; args[0].lat must be a number from -90 to 90, got 100"}},
	} {
		_, _, err := parse(tc.args)
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tc.name, err, w)
			}
		}
	}
}
