package router

import (
	"testing"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
)

// msgpackInFrames are frames of the types decodeMsgpack builds itself,
// in every shape (fields missing, nil, of unexpected types, extra), and
// of types it leaves to nexus, encoded from their lists.
func msgpackInFrames(tb testing.TB) [][]byte {
	tb.Helper()
	row := []any{map[string]any{"tsp": "2026-11-29T00:00:00.000Z", "seq": uint64(300), "v": -2.5, "b": []byte{1, 2, 3}, "n": nil},
		"text", int64(-3), true}
	kw := map[string]any{"DEVICE_KEY": 7}
	lists := [][]any{
		{wamp.PUBLISH, 1, map[string]any{}, "com.example.t"},
		{wamp.PUBLISH, 1, map[string]any{"acknowledge": true}, "com.example.t", row},
		{wamp.PUBLISH, 1, map[string]any{}, "com.example.t", row, kw},
		{wamp.PUBLISH, 1, map[string]any{}, "com.example.t", []any{}, kw, "extra"},
		{wamp.PUBLISH, 1, nil, nil, nil, nil},
		{wamp.PUBLISH},
		{wamp.PUBLISH, 1},
		{wamp.PUBLISH, -1, map[string]any{}, "t"},
		{wamp.PUBLISH, uint64(1) << 60, map[string]any{}, "t"},
		{wamp.PUBLISH, 1.5, map[string]any{}, "t"},
		{wamp.PUBLISH, "1", map[string]any{}, "t"},
		{wamp.PUBLISH, 1, []any{}, "t"},
		{wamp.PUBLISH, 1, map[string]any{}, 5},
		{wamp.PUBLISH, 1, map[string]any{}, []byte("t")},
		{wamp.PUBLISH, 1, map[string]any{}, "t", map[string]any{}},
		{wamp.PUBLISH, 1, map[string]any{}, "t", row, row},
		{wamp.CALL, 7, map[string]any{"timeout": 1000}, "append.1.2.samples", row},
		{wamp.CALL, 7, map[string]any{}, "append.1.2.samples", row, kw},
		{wamp.CALL, 7, map[string]any{}, "p", nil, kw},
		{wamp.CALL, 7, map[string]any{}, true},
		{wamp.YIELD, 9, map[string]any{}, []any{map[string]any{"success": true}}},
		{wamp.YIELD, 9, map[string]any{"progress": true}, []any{}, kw},
		{wamp.YIELD, 9, nil},
		{wamp.YIELD, 9, map[string]any{}, "not a list"},
		{wamp.HELLO, "realm-1-2-dev", map[string]any{"roles": map[string]any{"caller": map[string]any{"features": map[string]any{"call_timeout": true}}},
			"authmethods": []any{"wampcra"}, "authid": "5b3c-serial"}},
		{wamp.HELLO, "realm-1-2-dev"},
		{wamp.HELLO, 7, map[string]any{}},
		{wamp.HELLO, "realm-1-2-dev", []any{}},
		{wamp.AUTHENTICATE, "c2lnbmF0dXJl", map[string]any{}},
		{wamp.AUTHENTICATE, []byte("sig"), map[string]any{}},
		{wamp.AUTHENTICATE, nil, nil},
		{wamp.GOODBYE, map[string]any{"message": "bye"}, "wamp.close.normal"},
		{wamp.GOODBYE, map[string]any{}, 3},
		{wamp.SUBSCRIBE, 3, map[string]any{}, "com.example.t"},
		{wamp.SUBSCRIBE, 3, map[string]any{"match": "prefix"}, "com.example"},
		{wamp.SUBSCRIBE, 3, "options", "com.example.t"},
		{wamp.UNSUBSCRIBE, 4, uint64(1) << 53},
		{wamp.UNSUBSCRIBE, 4, "sub"},
		{wamp.REGISTER, 5, map[string]any{"force_reregister": true}, "1.7.2.DEV.echo"},
		{wamp.REGISTER, 5, map[string]any{}, nil},
		{wamp.UNREGISTER, 6, 99},
		{wamp.CANCEL, 7, map[string]any{"mode": "kill"}},
		{wamp.CANCEL, 7, true},
		{wamp.ERROR, wamp.INVOCATION, 9, map[string]any{}, "wamp.error.runtime_error", []any{"no"}},
		{wamp.ERROR, wamp.INVOCATION, 9, map[string]any{}, "app.error", []any{}, map[string]any{"why": "because"}},
		{wamp.ERROR, -1, 9, map[string]any{}, "app.error"},
		{wamp.ERROR}, {wamp.ERROR, wamp.CALL}, {wamp.ERROR, nil, 1, nil, "app.error"},
		{wamp.ERROR, "68", 9, map[string]any{}, "app.error"},
		{wamp.WELCOME, 1, map[string]any{}},
		{wamp.EVENT, 1, 2, map[string]any{}},
	}
	ser := &serialize.MessagePackSerializer{}
	frames := [][]byte{nil, {0x90}, {0x90, 0x10}, {0x91, 0x10}, {0x93, 0x30, 0x01}, {0x95, 0x10, 0x01, 0x80, 0xa1}, {0xc1}}
	for _, l := range lists {
		b, err := ser.SerializeDataItem(l)
		if err != nil {
			tb.Fatal(err)
		}
		frames = append(frames, b)
	}
	return frames
}

// sameAsNexus fails t when decodeMsgpack's answer to frame differs from
// nexus's Deserialize.
func sameAsNexus(t *testing.T, frame []byte) {
	ser := &serialize.MessagePackSerializer{}
	want, wantErr := ser.Deserialize(frame)
	got, err := decodeMsgpack(ser, frame)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("% x: error %v, nexus %v", frame, err, wantErr)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("% x: (-nexus +got)\n%s", frame, d)
	}
}

// TestDecodeMsgpackAsNexus checks that a link decodes every frame into the
// message, or the error, nexus's serializer makes of it.
func TestDecodeMsgpackAsNexus(t *testing.T) {
	for _, f := range msgpackInFrames(t) {
		sameAsNexus(t, f)
	}
}

// FuzzDecodeMsgpack checks decodeMsgpack against nexus on any frame.
func FuzzDecodeMsgpack(f *testing.F) {
	for _, b := range msgpackInFrames(f) {
		f.Add(b)
	}
	f.Fuzz(sameAsNexus)
}

// TestDecodedOwnsItsBytes checks that a decoded message shares no byte
// with its frame, which the link reuses for the next message: strings and
// binary values are copies.
func TestDecodedOwnsItsBytes(t *testing.T) {
	ser := &serialize.MessagePackSerializer{}
	frame, err := ser.SerializeDataItem([]any{wamp.CALL, 7, map[string]any{}, "append.1.2.samples",
		[]any{map[string]any{"s": "text", "b": []byte("bytes")}}})
	if err != nil {
		t.Fatal(err)
	}
	msg, err := decodeMsgpack(ser, frame)
	if err != nil {
		t.Fatal(err)
	}
	for i := range frame {
		frame[i] = 0
	}
	row := msg.(*wamp.Call).Arguments[0].(map[string]any)
	if msg.(*wamp.Call).Procedure != "append.1.2.samples" || row["s"] != "text" || string(row["b"].([]byte)) != "bytes" {
		t.Errorf("the message changed with its frame: %+v", msg)
	}
}

// TestDecodeMsgpackAllocations pins what decoding an append's CALL
// allocates: its list, the row's map and values, the message; no decoder
// (nexus: 25 allocations, 1,360 B; ugorji's decoder into the same list 23,
// 776 B; read here 17, 704 B).
func TestDecodeMsgpackAllocations(t *testing.T) {
	ser := &serialize.MessagePackSerializer{}
	frame, err := ser.SerializeDataItem([]any{wamp.CALL, 7, map[string]any{}, "append.1.2.samples",
		[]any{map[string]any{"tsp": "2026-11-29T00:00:00.000Z", "seq": 300, "value": 42.5}}})
	if err != nil {
		t.Fatal(err)
	}
	ours := testing.AllocsPerRun(200, func() { _, _ = decodeMsgpack(ser, frame) })
	theirs := testing.AllocsPerRun(200, func() { _, _ = ser.Deserialize(frame) })
	const pinned = 17
	if ours > pinned {
		t.Errorf("%v allocations (nexus: %v), at most %v", ours, theirs, pinned)
	}
	t.Logf("%v allocations, nexus %v", ours, theirs)
}
