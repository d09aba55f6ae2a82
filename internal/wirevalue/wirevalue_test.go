package wirevalue

import (
	"math"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestNormalize(t *testing.T) {
	in := map[string]any{
		"small":  uint64(7),
		"big":    uint64(math.MaxUint64),
		"i32":    int32(-3),
		"f32":    float32(0.5),
		"list":   wamp.List{uint8(1), map[any]any{"k": uint16(2), 3: "three"}},
		"dict":   wamp.Dict{"b": "\x00AQI="},
		"binary": []byte{1},
	}
	want := map[string]any{
		"small":  int64(7),
		"big":    uint64(math.MaxUint64),
		"i32":    int64(-3),
		"f32":    0.5,
		"list":   []any{int64(1), map[string]any{"k": int64(2), "3": "three"}},
		"dict":   map[string]any{"b": []byte{1, 2}},
		"binary": []byte{1},
	}
	if diff := cmp.Diff(want, Normalize(in, true)); diff != "" {
		t.Errorf("Normalize (-want +got):\n%s", diff)
	}
	if got := Normalize("\x00AQI=", false); got != "\x00AQI=" {
		t.Errorf("binary convention applied outside JSON: %#v", got)
	}
}

func TestForJSON(t *testing.T) {
	shared := map[string]any{"n": 1}
	in := []any{shared, []byte{1, 2}, math.NaN(), map[string]any{"inf": math.Inf(1), "s": "x"}, []byte{}, []byte(nil)}
	got := ForJSON(in)
	want := []any{map[string]any{"n": 1}, "\x00AQI=", nil, map[string]any{"inf": nil, "s": "x"}, "\x00", nil}
	if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
		t.Errorf("ForJSON (-want +got):\n%s", diff)
	}
	if _, ok := in[1].([]byte); !ok {
		t.Error("ForJSON changed its input")
	}
	plain := map[string]any{"a": "b"}
	if out := ForJSON(plain).(map[string]any); len(out) != 1 || out["a"] != "b" {
		t.Errorf("plain value changed: %v", out)
	}
	if ForJSONList(nil) != nil || ForJSONDict(nil) != nil {
		t.Error("nil must stay nil")
	}
}
