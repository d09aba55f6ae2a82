package engine

import (
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/wirevalue"
)

// FuzzCodec checks the codec against nexus's serializers on arbitrary
// input, in msgpack and JSON: whatever message the engine reads, nexus
// reads the same; and whatever value nexus reads from the input, every
// message the engine sends carrying it is read by nexus as nexus's own
// encoding, and every message a router sends carrying it is read by the
// engine as by nexus, in both formats.
func FuzzCodec(f *testing.F) {
	seed := []any{map[string]any{"a": 1.5, "b": []byte{1}}, "x", nil, true, int64(-3), uint64(1 << 63), 2.0}
	for _, json := range []bool{false, true} {
		for _, m := range received(seed) {
			b, err := nexusWrite(m, json)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, json)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, json bool) {
		// cmp takes exponential time over deeply nested lists; the depth
		// bound of the codec is tested apart.
		if nesting(data, json) > 8 {
			return
		}
		if msg, err := decode(data, json, &keyCache{}, nil); err == nil {
			if got := toNexus(msg); got != nil { // not an abort or otherMsg
				want, err := nexusRead(data, json)
				if err != nil && json && strings.Contains(err.Error(), "strconv.ParseInt") {
					return // nexus refuses negative integers beyond int64, which the engine reads as floats
				}
				if err != nil {
					t.Fatalf("the engine read %#v from what nexus refuses (%v): %q", msg, err, data)
				}
				if diff := diffMsg(want, got); diff != "" {
					t.Fatalf("%q (-nexus +engine):\n%s", data, diff)
				}
			}
		}
		var v any
		if err := nexusSer(json).DeserializeDataItem(data, &v); err != nil {
			return
		}
		v = wirevalue.Normalize(v, json)
		if _, err := encode(nil, false, &yieldMsg{Args: []any{v}}); err != nil {
			return // outside the wire form (an extension value)
		}
		for _, json := range []bool{false, true} {
			if json && utf8Collision(v) {
				break // in JSON, a key repeats: which value is kept is up to the map's order
			}
			for _, m := range sent(v) {
				checkWrite(t, m, json)
			}
			for _, m := range received(v) {
				checkRead(t, m, json, &keyCache{})
			}
		}
	})
}

// utf8Collision reports whether a map in v has two keys that are the same
// once their invalid UTF-8 is replaced, as it is in JSON.
func utf8Collision(v any) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if utf8Collision(e) {
				return true
			}
		}
	case map[string]any:
		seen := map[string]bool{}
		for k, e := range x {
			if seen[string([]rune(k))] || utf8Collision(e) {
				return true
			}
			seen[string([]rune(k))] = true
		}
	}
	return false
}

// nesting bounds how deeply the msgpack or JSON in data nests: the count of
// array and map headers (or brackets and braces) in it, whatever their
// place.
func nesting(data []byte, json bool) int {
	n := 0
	for _, c := range data {
		if json && (c == '[' || c == '{') || !json && (c >= 0x80 && c <= 0x9f || c == 0xdc || c == 0xdd || c == 0xde || c == 0xdf) {
			n++
		}
	}
	return n
}
