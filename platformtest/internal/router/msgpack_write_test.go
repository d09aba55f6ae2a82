package router

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/ugorji/go/codec"
)

// ugorjiBytes encodes v as a link's pooled encoder does, with nexus's
// options.
func ugorjiBytes(tb testing.TB, v any) []byte {
	tb.Helper()
	var b []byte
	if err := codec.NewEncoderBytes(&b, msgpackHandle).Encode(v); err != nil {
		tb.Fatal(err)
	}
	return b
}

// writeValues are values in every form and width the writer writes, maps
// of one entry at most (the order of more is Go's iteration order).
func writeValues() []any {
	var vs []any
	for _, i := range []int64{0, 1, 127, 128, 255, 256, 32767, 32768, 65535, 65536, math.MaxInt32, math.MaxInt32 + 1,
		math.MaxInt64, -1, -32, -33, -128, -129, -32768, -32769, math.MinInt32, math.MinInt32 - 1, math.MinInt64} {
		vs = append(vs, i, int(i), int32(i), int16(i), int8(i))
		vs = append(vs, uint64(i), uint(i), wamp.ID(i), uint32(i), uint16(i), uint8(i))
	}
	for _, n := range []int{0, 1, 15, 16, 31, 32, 255, 256, 65535, 65536} {
		s := strings.Repeat("s", n)
		vs = append(vs, s, wamp.URI(s), []byte(s), make([]any, n), make(wamp.List, n), strings.Split(s, ""))
	}
	m := map[string]any{"k": map[string]any{"k": map[string]any{}}}
	vs = append(vs, nil, true, false, 1.5, math.Inf(1), float32(-0.25), []byte(nil), []any(nil), wamp.List(nil),
		map[string]any(nil), wamp.Dict(nil), []string(nil), []map[string]any(nil), map[string]any{}, wamp.Dict{},
		m, wamp.Dict{"l": wamp.List{wamp.Dict{"x": nil}}}, []map[string]any{{"a": 1}, nil, {}},
		[]any{"é", []byte{}, uint8(200), -2.5, []string{"a"}})
	return vs
}

// TestWriteMsgpackSameBytes checks that the writer writes every value as
// ugorji's encoder does, to the byte.
func TestWriteMsgpackSameBytes(t *testing.T) {
	for _, v := range writeValues() {
		got, ok := appendMsgpack(nil, v, 0)
		if !ok {
			t.Errorf("%T %.40v: left to the general encoder", v, v)
			continue
		}
		if want := ugorjiBytes(t, v); !bytes.Equal(got, want) {
			t.Errorf("%T %.40v:\n got % .40x\nwant % .40x", v, v, got, want)
		}
	}
}

// TestWriteMsgpackLeaves checks that a list holding a type the writer
// does not know, or nested too deep, is left to the general encoder.
func TestWriteMsgpackLeaves(t *testing.T) {
	type named int
	deep := []any{1}
	for range maxWriteDepth {
		deep = []any{deep}
	}
	for _, v := range []any{time.Unix(1, 0), named(1), struct{ A int }{1}, &wamp.Dict{}, map[int]any{1: 1},
		[]any{1, time.Unix(1, 0)}, wamp.Dict{"t": time.Unix(1, 0)}, deep} {
		if b, ok := appendMsgpack(nil, v, 0); ok {
			t.Errorf("%T: written (% x), want it left alone", v, b)
		}
	}
	if _, ok := appendMsgpack(nil, deep[0], 0); !ok {
		t.Errorf("a list nested %d deep is left alone", maxWriteDepth)
	}
	l := []any{int(wamp.RESULT), uint64(1), map[string]any{}, []any{time.Unix(1, 0)}}
	got, err := encodeList(l)
	if err != nil || !bytes.Equal(got, ugorjiBytes(t, l)) {
		t.Errorf("a list with a time: % x, %v; want ugorji's % x", got, err, ugorjiBytes(t, l))
	}
}

// TestWriteMsgpackRandom compares the writer with ugorji's encoder on
// random messages: the same length, and the same values read back (maps
// of several entries come in either's order).
func TestWriteMsgpackRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 11))
	for range 2000 {
		l := []any{int(wamp.RESULT), r.Uint64() >> r.IntN(64), map[string]any{}, []any{randomValue(r, 3)},
			map[string]any{"kw": randomValue(r, 3)}}
		got, ok := appendMsgpack(nil, l, 0)
		if !ok {
			t.Fatalf("%v: left alone", l)
		}
		want := ugorjiBytes(t, l)
		if len(got) != len(want) {
			t.Fatalf("%v: %d bytes, ugorji %d", l, len(got), len(want))
		}
		g, err1 := ugorjiList(got)
		w, err2 := ugorjiList(want)
		if err1 != nil || err2 != nil || !reflect.DeepEqual(g, w) {
			t.Fatalf("%v: reads back as %v (%v), ugorji's as %v (%v)", l, g, err1, w, err2)
		}
	}
}

// TestWriteMsgpackAllocations pins what encoding an append's RESULT
// allocates: the list, its request ID and the frame (ugorji's pooled
// encoder: 8; nexus: 10).
func TestWriteMsgpackAllocations(t *testing.T) {
	w := newPeer(New(Config{Clock: wallClock{}}), nil, nil, false)
	m := &wamp.Result{Request: 123456, Details: wamp.Dict{}, Arguments: wamp.List{wamp.Dict{"success": true}}}
	const pinned = 4
	if n := testing.AllocsPerRun(200, func() { _, _ = w.serialize(m) }); n > pinned {
		t.Errorf("%v allocations, at most %v", n, pinned)
	}
}
