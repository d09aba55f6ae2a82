// This file tests which maps splitArgs sends as they are.

package client

import "testing"

func TestFlatWireMap(t *testing.T) {
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
		{map[string]any{"nested": map[string]any{}}, false},
		{map[string]any{"b": []byte{1}}, false},
	}
	for _, c := range cases {
		if got := flatWireMap(c.m); got != c.want {
			t.Errorf("flatWireMap(%v) = %v, want %v", c.m, got, c.want)
		}
	}
	row := map[string]any{"t": 21.5}
	args, _, _, err := splitArgs[noOptions]("Publish", "com.example.t", []any{row})
	if err != nil {
		t.Fatal(err)
	}
	if m, ok := args[0].(map[string]any); !ok || len(m) != 1 || m["t"] != 21.5 {
		t.Errorf("a flat wire map became %#v", args[0])
	}
	args, _, _, err = splitArgs[noOptions]("Publish", "com.example.t", []any{map[string]any{"n": 4}})
	if err != nil {
		t.Fatal(err)
	}
	if n := args[0].(map[string]any)["n"]; n != int64(4) {
		t.Errorf("an int in a map was sent as %T, want int64", n)
	}
}
