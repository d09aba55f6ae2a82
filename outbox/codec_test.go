package outbox

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCodecRoundTrip(t *testing.T) {
	for name, v := range map[string]any{
		"nil":     nil,
		"bools":   []any{true, false},
		"ints":    []any{int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64)},
		"uint":    uint64(math.MaxUint64),
		"floats":  []any{0.0, -1.5, math.Inf(1), math.SmallestNonzeroFloat64, 1.0},
		"strings": []any{"", "ünïcode", string(make([]byte, 300))},
		"bytes":   []any{[]byte{}, []byte{0, 1, 255}},
		"row": map[string]any{
			"tsp": "2026-01-01T00:00:00Z", "n": int64(7), "temp": 21.5, "ok": true, "none": nil,
			"raw": []byte("x"), "nested": map[string]any{"list": []any{int64(1), "two", map[string]any{}}},
		},
	} {
		b, err := encodeWire(nil, v)
		if err != nil {
			t.Fatalf("%s: encode: %v", name, err)
		}
		got, rest, err := decodeWire(b)
		if err != nil || len(rest) != 0 {
			t.Fatalf("%s: decode: %v (%d bytes left)", name, err, len(rest))
		}
		if diff := cmp.Diff(v, got); diff != "" {
			t.Errorf("%s: round trip (-want +got):\n%s", name, diff)
		}
	}
	if _, err := encodeWire(nil, map[string]any{"c": make(chan int)}); err == nil {
		t.Error("encoding a channel succeeded")
	}
}

func TestCodecRefusesDamage(t *testing.T) {
	good, _ := encodeWire(nil, map[string]any{"a": []any{"text", int64(300), 1.5}})
	for i := range good {
		if _, _, err := decodeWire(good[:i]); !errors.Is(err, errDamaged) {
			t.Errorf("decoding the first %d of %d bytes: %v, want errDamaged", i, len(good), err)
		}
	}
	for name, b := range map[string][]byte{
		"unknown tag": {42},
		"huge count":  {tagList, 0xff, 0xff, 0xff, 0xff, 0x0f},
		"huge string": {tagString, 0xff, 0xff, 0xff, 0xff, 0x0f, 'a'},
		"bad varint":  {tagInt, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01},
	} {
		if _, _, err := decodeWire(b); !errors.Is(err, errDamaged) {
			t.Errorf("%s: %v, want errDamaged", name, err)
		}
	}
	deep := make([]byte, 0, 2*maxDepth+4)
	for range maxDepth + 2 {
		deep = append(deep, tagList, 1)
	}
	deep = append(deep, tagNil)
	if _, _, err := decodeWire(deep); !errors.Is(err, errDamaged) {
		t.Errorf("decoding %d nested lists: %v, want errDamaged", maxDepth+2, err)
	}
}

// FuzzDecodeWire checks that the decoder never panics and that whatever
// it accepts encodes to bytes that decode and encode again to the same
// bytes (compared as bytes, so that NaN compares equal).
func FuzzDecodeWire(f *testing.F) {
	for _, v := range []any{nil, map[string]any{"a": int64(1), "b": []any{1.5, "x", []byte{1}}}, uint64(1 << 63)} {
		b, _ := encodeWire(nil, v)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, _, err := decodeWire(b)
		if err != nil {
			return
		}
		again, err := encodeWire(nil, v)
		if err != nil {
			t.Fatalf("decoded %#v does not encode: %v", v, err)
		}
		v2, rest2, err := decodeWire(again)
		if err != nil || len(rest2) != 0 {
			t.Fatalf("re-encoded bytes do not decode: %v (%d bytes left)", err, len(rest2))
		}
		third, err := encodeWire(nil, v2)
		if err != nil || !bytes.Equal(again, third) {
			t.Fatalf("round trip changed the value: %x, then %x (%v)", again, third, err)
		}
	})
}
