// This file tests the engine's msgpack codec against nexus's serializer,
// both ways: the bytes it writes are nexus's bytes, and what it reads is
// what nexus's serializer and normalizePayload make of the same bytes.

package engine

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/internal/wirevalue"
)

// codecValues are values of every form and size boundary of the wire form.
func codecValues() []any {
	vals := []any{nil, true, false, "", "x", strings.Repeat("s", 31), strings.Repeat("s", 32), strings.Repeat("s", 255),
		strings.Repeat("s", 256), strings.Repeat("s", 65535), strings.Repeat("s", 65536),
		[]byte{}, []byte{1, 2}, bytes.Repeat([]byte{7}, 255), bytes.Repeat([]byte{7}, 256), bytes.Repeat([]byte{7}, 70000),
		1.5, math.Inf(-1), math.MaxFloat64, float32(0.25), math.Copysign(0, -1),
		[]any{}, []any{nil}, map[string]any{}, map[string]any{"k": []any{int64(1), "v"}},
		make([]any, 15), make([]any, 16),
		[]byte(nil), []any(nil), map[string]any(nil), wamp.List{"named"}, wamp.Dict{"named": wamp.List{}},
	}
	for _, i := range []int64{0, 1, 127, 128, 255, 256, math.MaxInt16, math.MaxInt16 + 1, math.MaxUint16, math.MaxUint16 + 1,
		math.MaxInt32, math.MaxInt32 + 1, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64,
		-1, -32, -33, -128, -129, math.MinInt16, math.MinInt16 - 1, math.MinInt32, math.MinInt32 - 1, math.MinInt64} {
		vals = append(vals, i, int(i))
	}
	for _, u := range []uint64{0, 127, 128, 255, 256, math.MaxUint16, math.MaxUint16 + 1, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64 + 1, math.MaxUint64} {
		vals = append(vals, u)
	}
	return append(vals, int32(-70000), uint32(70000))
}

// bigDict has 16 keys: a map16 header.
func bigDict() map[string]any {
	d := map[string]any{}
	for i := range 16 {
		d[strings.Repeat("k", i+1)] = int64(i)
	}
	return d
}

func TestCodecWritesNexusBytes(t *testing.T) {
	mp := &serialize.MessagePackSerializer{}
	var msgs []wamp.Message
	for _, v := range codecValues() {
		msgs = append(msgs,
			&wamp.Publish{Request: 1, Options: wamp.Dict{"acknowledge": true}, Topic: "com.example.t", Arguments: wamp.List{v}},
			&wamp.Publish{Request: 1 << 40, Options: wamp.Dict{}, Topic: "t", ArgumentsKw: wamp.Dict{"v": v}},
			&wamp.Call{Request: 300, Options: wamp.Dict{"timeout": int64(5000)}, Procedure: "p", Arguments: wamp.List{v, v}, ArgumentsKw: wamp.Dict{"v": v}},
			&wamp.Yield{Request: 70000, Options: wamp.Dict{}, Arguments: wamp.List{v}},
		)
	}
	msgs = append(msgs,
		&wamp.Publish{Request: 2, Options: wamp.Dict{}, Topic: "t", Arguments: make(wamp.List, 65536)},
		&wamp.Publish{Request: 2, Options: wamp.Dict{}, Topic: "t"},
		&wamp.Publish{Request: 2, Options: nil, Topic: "t", Arguments: wamp.List{}, ArgumentsKw: wamp.Dict{}},
		&wamp.Call{Request: 3, Options: wamp.Dict{}, Procedure: "p", ArgumentsKw: wamp.Dict{"only": "kwargs"}},
		&wamp.Yield{Request: 4, Options: wamp.Dict{}},
		&wamp.Yield{Request: 4, Options: wamp.Dict{}, Arguments: wamp.List{}, ArgumentsKw: wamp.Dict{"a": nil}},
	)
	for _, msg := range msgs {
		want, err := mp.Serialize(msg)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendMessage(nil, msg)
		if !ok {
			t.Fatalf("%#v: not encoded", msg)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("%#v:\n got %x\nwant %x", msg, got, want)
		}
	}
	// Maps of several keys come out in Go's order: compare what nexus reads.
	msg := &wamp.Publish{Request: 9, Options: bigDict(), Topic: "t", Arguments: wamp.List{bigDict()}, ArgumentsKw: bigDict()}
	got, ok := appendMessage(nil, msg)
	if !ok {
		t.Fatal("not encoded")
	}
	back, err := mp.Deserialize(got)
	if err != nil {
		t.Fatal(err)
	}
	normalizePayload(back, false)
	back.(*wamp.Publish).Options = wamp.Dict(normalizeDict(back.(*wamp.Publish).Options))
	want := &wamp.Publish{Request: 9, Options: bigDict(), Topic: "t", Arguments: wamp.List{bigDict()}, ArgumentsKw: bigDict()}
	if diff := cmp.Diff(wamp.Message(want), back); diff != "" {
		t.Fatalf("round trip (-want +got):\n%s", diff)
	}
	// Values outside the wire form are left to nexus.
	for _, v := range []any{struct{}{}, int8(1), uint(1), map[string]string{}, []string{}} {
		if _, ok := appendMessage(nil, &wamp.Publish{Request: 1, Options: wamp.Dict{}, Topic: "t", Arguments: wamp.List{v}}); ok {
			t.Errorf("%T encoded", v)
		}
	}
	if _, ok := appendMessage(nil, &wamp.Subscribe{Request: 1, Options: wamp.Dict{}, Topic: "t"}); ok {
		t.Error("SUBSCRIBE encoded")
	}
}

func normalizeDict(d wamp.Dict) map[string]any {
	if d == nil {
		return nil
	}
	v, _ := wirevalue.Normalize(map[string]any(d), false).(map[string]any)
	return v
}

// nexusRead is the reference: nexus's serializer and normalizePayload.
func nexusRead(t testing.TB, b []byte) (wamp.Message, error) {
	msg, err := (&serialize.MessagePackSerializer{}).Deserialize(b)
	if err != nil {
		return nil, err
	}
	normalizePayload(msg, false)
	return msg, nil
}

func TestCodecReadsAsNexus(t *testing.T) {
	mp := &serialize.MessagePackSerializer{}
	var msgs []wamp.Message
	for _, v := range append(codecValues(), bigDict(), []any{bigDict(), []any{[]any{"deep"}}}) {
		msgs = append(msgs,
			&wamp.Published{Request: 1, Publication: wamp.ID(math.MaxInt64 + 5)},
			&wamp.Result{Request: 2, Details: wamp.Dict{"progress": true}, Arguments: wamp.List{v}},
			&wamp.Result{Request: 2, Details: wamp.Dict{}, ArgumentsKw: wamp.Dict{"v": v}},
			&wamp.Event{Subscription: 3, Publication: 1 << 50, Details: wamp.Dict{"topic": "a.b", "v": v}, Arguments: wamp.List{v}, ArgumentsKw: wamp.Dict{"v": v}},
			&wamp.Invocation{Request: 4, Registration: 5, Details: wamp.Dict{"caller": int64(7)}, Arguments: wamp.List{v, v}},
			&wamp.Error{Type: wamp.CALL, Request: 6, Details: wamp.Dict{}, Error: "com.example.error", Arguments: wamp.List{v}},
		)
	}
	msgs = append(msgs,
		&wamp.Result{Request: 2, Details: wamp.Dict{}, Arguments: make(wamp.List, 65536)},
		&wamp.Result{Request: 2, Details: nil},
		&wamp.Event{Subscription: 3, Publication: 4, Details: wamp.Dict{}},
		&wamp.Error{Type: wamp.INVOCATION, Request: 6, Details: wamp.Dict{}, Error: "e", Arguments: wamp.List{}, ArgumentsKw: wamp.Dict{"k": []byte{}}},
	)
	// Each message is read twice through one key cache: the second time,
	// its keys come from the cache.
	keys := &keyCache{}
	for _, msg := range msgs {
		b, err := mp.Serialize(msg)
		if err != nil {
			t.Fatal(err)
		}
		want, err := nexusRead(t, b)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			got, ok := parseMessage(b, keys)
			if !ok {
				t.Fatalf("%#v: not read", msg)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("%#v (-nexus +engine):\n%s", msg, diff)
			}
		}
	}
	// Forms outside the wire form, other messages and broken input are left
	// to nexus.
	for _, raw := range [][]any{
		{int64(wamp.RESULT), int64(1), map[string]any{}, []any{int64(1)}, map[string]any{}, "extra"},
		{int64(wamp.SUBSCRIBED), int64(1), int64(2)},
		{int64(wamp.EVENT), int64(1), int64(2), map[string]any{}, "not a list"},
		{int64(wamp.RESULT), "not an id", map[string]any{}},
	} {
		b, err := mp.SerializeDataItem(raw)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := parseMessage(b, nil); ok {
			t.Errorf("%v read", raw)
		}
	}
	b, _ := mp.Serialize(&wamp.Result{Request: 1, Details: wamp.Dict{}, Arguments: wamp.List{"abc"}})
	for i := range b {
		if _, ok := parseMessage(b[:i], nil); ok {
			t.Errorf("truncated at %d: read", i)
		}
	}
	// A map with an integer key and a timestamp extension.
	for _, raw := range [][]byte{
		{0x93, 50, 1, 0x81, 0x01, 0x01},
		{0x94, 50, 1, 0x80, 0x91, 0xd6, 0xff, 0, 0, 0, 1},
	} {
		if _, ok := parseMessage(raw, nil); ok {
			t.Errorf("%x read", raw)
		}
	}
}

// FuzzCodec checks both directions on arbitrary input: whatever the engine
// reads, nexus reads the same; whatever payload nexus reads, the engine
// writes so that nexus reads it back the same as its own encoding.
func FuzzCodec(f *testing.F) {
	mp := &serialize.MessagePackSerializer{}
	for _, msg := range []wamp.Message{
		&wamp.Result{Request: 2, Details: wamp.Dict{}, Arguments: wamp.List{map[string]any{"a": 1.5, "b": []byte{1}}}, ArgumentsKw: wamp.Dict{"k": wamp.List{"x", nil, true}}},
		&wamp.Event{Subscription: 1, Publication: 2, Details: wamp.Dict{"topic": "t"}, Arguments: wamp.List{uint64(1 << 63), -3, float32(2)}},
		&wamp.Invocation{Request: 3, Registration: 4, Details: wamp.Dict{}, ArgumentsKw: wamp.Dict{"s": strings.Repeat("x", 40)}},
		&wamp.Error{Type: wamp.CALL, Request: 5, Details: wamp.Dict{}, Error: "e.f"},
		&wamp.Published{Request: 6, Publication: 7},
	} {
		b, err := mp.Serialize(msg)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// cmp takes exponential time over deeply nested lists; the depth
		// bound of the codec is tested above.
		if nesting(data) > 8 {
			return
		}
		keys := &keyCache{}
		if got, ok := parseMessage(data, keys); ok {
			want, err := nexusRead(t, data)
			if err != nil {
				t.Fatalf("the engine read what nexus refuses (%v): %x", err, data)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("%x (-nexus +engine):\n%s", data, diff)
			}
			// Again, with the keys cached.
			again, _ := parseMessage(data, keys)
			if diff := cmp.Diff(want, again, cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("%x read again (-nexus +engine):\n%s", data, diff)
			}
		}
		var v any
		if err := mp.DeserializeDataItem(data, &v); err != nil {
			return
		}
		v = wirevalue.Normalize(v, false)
		msg := &wamp.Publish{Request: 1, Options: wamp.Dict{}, Topic: "t", Arguments: wamp.List{v}}
		ours, ok := appendMessage(nil, msg)
		if !ok {
			return
		}
		theirs, err := mp.Serialize(msg)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Equal(ours, theirs) {
			return
		}
		a, errA := nexusRead(t, ours)
		b, errB := nexusRead(t, theirs)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("nexus reads ours: %v, its own: %v", errA, errB)
		}
		if diff := cmp.Diff(b, a, cmpopts.EquateNaNs()); diff != "" {
			t.Fatalf("%x (-nexus's +ours):\n%s", data, diff)
		}
	})
}

// nesting bounds how deeply the msgpack in data nests: the count of array
// and map headers in it, whatever their place.
func nesting(data []byte) int {
	n := 0
	for _, c := range data {
		if c >= 0x80 && c <= 0x9f || c == 0xdc || c == 0xdd || c == 0xde || c == 0xdf {
			n++
		}
	}
	return n
}
