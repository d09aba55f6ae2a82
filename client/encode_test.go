// This file tests the encoder and the split of arguments.

package client

import (
	"encoding/json"
	"math"
	"math/big"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

type inner struct {
	At    time.Time `json:"at"`
	Bytes []byte    `json:"bytes"`
}

type Embedded struct {
	Promoted string `json:"promoted"`
	Shadowed string `json:"name"`
}

type row struct {
	Embedded
	Name     string         `json:"name"`
	Temp     float64        `json:"temperature"`
	Count    int            `json:"count,omitempty"`
	Skip     string         `json:"-"`
	Quoted   int            `json:"quoted,string"`
	When     *time.Time     `json:"when"`
	Inner    inner          `json:"inner"`
	Zero     time.Time      `json:"zero,omitzero"`
	Labels   map[string]int `json:"labels"`
	NilSlice []int          `json:"nil_slice"`
	private  int
	Untagged bool
}

type named []byte

type textKey struct{ a, b string }

func (k textKey) MarshalText() ([]byte, error) { return []byte(k.a + "/" + k.b), nil }

// stamp embeds a time: its MarshalJSON and MarshalText are the time's,
// promoted.
type stamp struct{ time.Time }

// ownStamp embeds a time but marshals itself.
type ownStamp struct{ time.Time }

func (ownStamp) MarshalJSON() ([]byte, error) { return []byte(`"own"`), nil }

type custom struct{ v int }

func (c custom) MarshalJSON() ([]byte, error) {
	return []byte(`{"v":` + string(rune('0'+c.v)) + `,"f":1.5}`), nil
}

func TestEncodeValue(t *testing.T) {
	t0 := time.Date(2026, 10, 8, 14, 0, 0, 123000000, time.FixedZone("CEST", 2*3600))
	when := time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)
	cases := []struct {
		name string
		in   any
		want any
	}{
		{"nil", nil, nil},
		{"string", "héllo", "héllo"},
		{"invalid utf8", "a\xffb", "a\uFFFDb"},
		{"int", 42, int64(42)},
		{"int8", int8(-3), int64(-3)},
		{"uint64 small", uint64(7), int64(7)},
		{"uint64 max", uint64(math.MaxUint64), uint64(math.MaxUint64)},
		{"float stays float", 2.0, 2.0},
		{"float32 shortest", float32(0.1), 0.1},
		{"bool", true, true},
		{"time in UTC with trimmed fraction", t0, "2026-10-08T12:00:00.123Z"},
		{"whole second time", when, "2026-01-15T10:30:00Z"},
		{"times in a row and a list, in UTC", map[string]any{"tsp": t0, "l": []any{when, t0}},
			map[string]any{"tsp": "2026-10-08T12:00:00.123Z", "l": []any{"2026-01-15T10:30:00Z", "2026-10-08T12:00:00.123Z"}}},
		{"time pointer", &when, "2026-01-15T10:30:00Z"},
		{"nil time pointer", (*time.Time)(nil), nil},
		{"time pointer in its own zone", &t0, "2026-10-08T12:00:00.123Z"},
		{"zone offset with seconds", time.Date(2026, 1, 1, 0, 0, 30, 0, time.FixedZone("LMT", 3600+30)), "2025-12-31T23:00:00Z"},
		{"zone offset with seconds through a pointer", func() *time.Time {
			t := time.Date(2026, 1, 1, 0, 0, 30, 0, time.FixedZone("LMT", -(3600+30)))
			return &t
		}(), "2026-01-01T01:01:00Z"},
		{"struct field time pointer", struct {
			W *time.Time `json:"w"`
		}{&t0}, map[string]any{"w": "2026-10-08T12:00:00.123Z"}},
		{"embedded time", stamp{t0}, "2026-10-08T12:00:00.123Z"},
		{"pointer to embedded time", &stamp{t0}, "2026-10-08T12:00:00.123Z"},
		{"embedded time marshaling itself", ownStamp{t0}, "own"},
		{"time pointer keys", map[*time.Time]int{&t0: 1}, map[string]any{"2026-10-08T12:00:00.123Z": int64(1)}},
		{"embedded time keys", map[stamp]int{{t0}: 1}, map[string]any{"2026-10-08T12:00:00.123Z": int64(1)}},
		{"year 0 and 9999", []time.Time{time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)},
			[]any{"0000-01-01T00:00:00Z", "9999-12-31T23:59:59Z"}},
		{"bytes stay binary", []byte{1, 2, 3}, []byte{1, 2, 3}},
		{"named bytes", named{9}, []byte{9}},
		{"nil slice", []int(nil), nil},
		{"nil map", map[string]int(nil), nil},
		{"empty slice", []int{}, []any{}},
		{"json.Number int", json.Number("12"), int64(12)},
		{"json.Number float", json.Number("1.5"), 1.5},
		{"NaN stays float", math.NaN(), math.NaN()},
		{"array", [2]int{1, 2}, []any{int64(1), int64(2)}},
		{"int keys", map[int]string{1: "a", -2: "b"}, map[string]any{"1": "a", "-2": "b"}},
		{"text keys", map[textKey]int{{"x", "y"}: 1}, map[string]any{"x/y": int64(1)}},
		{"time keys collapse", map[time.Time]int{
			time.Date(2026, 1, 1, 1, 0, 0, 0, time.FixedZone("A", 3600)): 1,
			time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC):                  1,
		}, map[string]any{"2026-01-01T00:00:00Z": int64(1)}},
		{"marshaler", custom{v: 3}, map[string]any{"v": int64(3), "f": 1.5}},
		{"big int", big.NewInt(12345), int64(12345)},
		{"text marshaler value", netip.MustParseAddr("10.0.0.1"), "10.0.0.1"},
		{"raw message", json.RawMessage(`[1,"a",null]`), []any{int64(1), "a", nil}},
		{"struct by json tags", row{
			Embedded: Embedded{Promoted: "p", Shadowed: "hidden"},
			Name:     "n", Temp: 21.0, Skip: "x", Quoted: 5, When: &when,
			Inner:  inner{At: t0, Bytes: []byte("b")},
			Labels: map[string]int{"a": 1}, private: 3, Untagged: true,
		}, map[string]any{
			"promoted":    "p",
			"name":        "n",
			"temperature": 21.0,
			"quoted":      "5",
			"when":        "2026-01-15T10:30:00Z",
			"inner":       map[string]any{"at": "2026-10-08T12:00:00.123Z", "bytes": []byte("b")},
			"labels":      map[string]any{"a": int64(1)},
			"nil_slice":   nil,
			"Untagged":    true,
		}},
		{"nested any", map[string]any{"l": []any{when, []byte{1}, map[string]any{"f": float32(0.5)}}},
			map[string]any{"l": []any{"2026-01-15T10:30:00Z", []byte{1}, map[string]any{"f": 0.5}}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := encodeValue(tc.in, "args[0]")
			if err != nil {
				t.Fatalf("encodeValue: %v", err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Errorf("encodeValue(%v) mismatch (-want +got):\n%s", tc.in, diff)
			}
		})
	}
}

func TestEncodeDoesNotAliasBytes(t *testing.T) {
	b := []byte("abc")
	got, err := encodeValue(map[string]any{"b": b}, "args[0]")
	if err != nil {
		t.Fatal(err)
	}
	b[0] = 'X'
	if s := string(got.(map[string]any)["b"].([]byte)); s != "abc" {
		t.Errorf("encoded bytes alias the caller's slice: %q", s)
	}
}

type cyclic struct {
	Next *cyclic `json:"next"`
}

func TestEncodeErrors(t *testing.T) {
	loop := &cyclic{}
	loop.Next = loop
	m := map[string]any{}
	m["self"] = m
	l := []any{nil}
	l[0] = l
	cases := []struct {
		name string
		in   any
		want string
	}{
		{"channel", map[string]any{"c": make(chan int)}, "args[0].c: unsupported type chan int"},
		{"func", []any{1, func() {}}, "args[0][1]: unsupported type func()"},
		{"complex", struct{ C complex128 }{1}, "args[0].C: unsupported type complex128"},
		{"cyclic pointer", loop, "cyclic value"},
		{"cyclic map", m, "cyclic value"},
		{"cyclic slice", l, "cyclic value"},
		{"bad key", map[float64]int{1.5: 1}, "unsupported map key type float64"},
		{"year 10000", map[string]any{"at": time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, "args[0].at: the time 10000-01-01T00:00:00Z is outside the years 0000–9999"},
		{"year -1 in UTC", []any{time.Date(0, 1, 1, 0, 30, 0, 0, time.FixedZone("X", 3600))}, "args[0][0]: the time -0001-12-31T23:30:00Z is outside"},
		{"far pointer", struct {
			P *time.Time `json:"p"`
		}{func() *time.Time { t := time.Date(12000, 1, 1, 0, 0, 0, 0, time.UTC); return &t }()}, "args[0].p: the time"},
		{"far map key", map[time.Time]int{time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC): 1}, "(map key)"},
		{"far embedded time", []any{stamp{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}, "args[0][0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := encodeValue(tc.in, "args[0]")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestSplitArgs(t *testing.T) {
	var opts []CallOption
	collect := func(o CallOption) { opts = append(opts, o) }
	args, kwargs, err := splitArgs("Call", "x", []any{1, Kwargs{"a": 1}, "s", Kwargs{"a": 2, "b": true}, Timeout(time.Second)}, collect)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{int64(1), "s"}, []any(args)); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{"a": int64(2), "b": true}, map[string]any(kwargs)); diff != "" {
		t.Errorf("kwargs (-want +got):\n%s", diff)
	}
	if len(opts) != 1 {
		t.Errorf("opts = %d, want 1", len(opts))
	}
	args, _, err = splitArgs[PublishOption]("Publish", "x", []any{Kwargs{"k": 1}}, nil)
	if err != nil || args == nil || len(args) != 0 {
		t.Errorf("kwargs-only: args = %#v, %v; want an empty non-nil list", args, err)
	}
	_, _, err = splitArgs[PublishOption]("Publish", "x", []any{Timeout(time.Second)}, nil)
	if err == nil || !strings.Contains(err.Error(), "call options are not accepted") {
		t.Errorf("call option in publish: err = %v", err)
	}
	// Wire-form arguments before the options are sent as given, without a
	// list of their own; the options are still applied.
	opts = nil
	row := map[string]any{"t": 21.5}
	in := []any{row, "s", Timeout(time.Second)}
	args, _, err = splitArgs("Call", "x", in, collect)
	if err != nil || len(args) != 2 || &args[0] != &in[0] || len(opts) != 1 {
		t.Errorf("wire-form arguments: args = %#v, opts = %d, %v; want in[:2] and 1 option", args, len(opts), err)
	}
	_, _, err = splitArgs[PublishOption]("Publish", "x", []any{row, Timeout(time.Second)}, nil)
	if err == nil || !strings.Contains(err.Error(), "call options are not accepted") {
		t.Errorf("call option in publish: err = %v", err)
	}
}
