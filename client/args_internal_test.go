// This file tests which maps splitArgs sends as they are.

package client

import (
	"reflect"
	"testing"
)

// nest returns a map holding n levels of maps below it.
func nest(n int) map[string]any {
	m := map[string]any{"leaf": true}
	for range n {
		m = map[string]any{"m": m}
	}
	return m
}

func TestWireMap(t *testing.T) {
	cases := []struct {
		m    map[string]any
		want bool
	}{
		{map[string]any{}, true},
		{map[string]any{"t": 21.5, "n": int64(4), "s": "x", "ok": true, "none": nil}, true},
		{map[string]any{"n": 4}, false},               // int: converted to int64
		{map[string]any{"f": float32(1)}, false},      // float32: converted to float64
		{map[string]any{"s": "bad \xff"}, false},      // invalid UTF-8 value: repaired
		{map[string]any{"bad \xff": int64(1)}, false}, // invalid UTF-8 key: repaired
		{map[string]any{"nested": map[string]any{"v": 0.5, "l": []any{int64(1), "x", nil}}}, true},
		{map[string]any{"nested": map[string]any{"n": 4}}, false},           // int below: converted
		{map[string]any{"list": []any{map[string]any{"s": "\xff"}}}, false}, // invalid UTF-8 below
		{map[string]any{"nil map": map[string]any(nil)}, false},             // nil map: sent as null
		{map[string]any{"nil list": []any(nil)}, false},                     // nil list: sent as null
		{map[string]any{"b": []byte{1}}, false},
		{nest(maxWireDepth), true},
		{nest(maxWireDepth + 1), false}, // deeper: left to the encoder
	}
	for _, c := range cases {
		if got := wireMap(c.m); got != c.want {
			t.Errorf("wireMap(%v) = %v, want %v", c.m, got, c.want)
		}
	}
	row := map[string]any{"t": 21.5}
	args, _, err := splitArgs[noOptions]("Publish", "com.example.t", []any{row}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := args[0].(map[string]any); !ok || len(m) != 1 || m["t"] != 21.5 {
		t.Errorf("a wire map became %#v", args[0])
	}
	args, _, err = splitArgs[noOptions]("Publish", "com.example.t", []any{map[string]any{"n": 4}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := args[0].(map[string]any)["n"]; n != int64(4) {
		t.Errorf("an int in a map was sent as %T, want int64", n)
	}
	nested := map[string]any{"tsp": "2026-01-01T00:00:00Z", "sensor": map[string]any{"v": 0.5}}
	args, _, err = splitArgs[noOptions]("Publish", "com.example.t", []any{nested}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := args[0].(map[string]any); !ok || reflect.ValueOf(m).UnsafePointer() != reflect.ValueOf(nested).UnsafePointer() {
		t.Errorf("a nested wire map was copied: %#v", args[0])
	}
}

func TestWireBatch(t *testing.T) {
	wire := map[string]any{"tsp": "2026-01-01T00:00:00Z", "sensor": map[string]any{"v": 0.5}}
	for _, tc := range []struct {
		rows any
		ok   bool
	}{
		{[]any{wire, wire}, true},
		{[]map[string]any{wire}, true},
		{[]any{wire, map[string]any{"n": 4}}, false}, // an int: the encoder converts it
		{[]any{wire, "not a row"}, false},
		{[]map[string]any{wire, nil}, false},
		{[]struct{ N int }{{1}}, false},
	} {
		batch, ok := wireBatch(tc.rows)
		if ok != tc.ok {
			t.Errorf("wireBatch(%v) ok = %v, want %v", tc.rows, ok, tc.ok)
			continue
		}
		if ok && (len(batch) != reflect.ValueOf(tc.rows).Len() || reflect.ValueOf(batch[0]).UnsafePointer() != reflect.ValueOf(wire).UnsafePointer()) {
			t.Errorf("wireBatch(%v) = %v, not the rows as they are", tc.rows, batch)
		}
	}
}
