package router

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/ugorji/go/codec"
)

// ugorjiList decodes data as a link did before it read frames itself: a
// decoder with nexus's options, into a list.
func ugorjiList(data []byte) ([]any, error) {
	var v []any
	err := codec.NewDecoderBytes(data, msgpackHandle).Decode(&v)
	return v, err
}

// sameAsUgorji fails t when readMsgpackList reads data into anything but
// what ugorji's decoder gives; a frame the reader leaves alone is fine.
func sameAsUgorji(t *testing.T, data []byte) {
	got, ok := readMsgpackList(data)
	if !ok {
		return
	}
	want, err := ugorjiList(data)
	if err != nil {
		t.Fatalf("% x: read %#v, ugorji refuses: %v", data, got, err)
	}
	if reflect.DeepEqual(want, got) { // strict as to types and nil; cmp below for NaN
		return
	}
	if d := cmp.Diff(want, got, cmpopts.EquateNaNs()); d != "" {
		t.Fatalf("% x: (-ugorji +read)\n%s", data, d)
	}
}

// mp builds msgpack bytes by hand, in the wide forms an encoder of another
// language may choose.
func mp(parts ...any) []byte {
	var b []byte
	for _, p := range parts {
		switch x := p.(type) {
		case byte:
			b = append(b, x)
		case int:
			b = append(b, byte(x))
		case uint16:
			b = binary.BigEndian.AppendUint16(b, x)
		case uint32:
			b = binary.BigEndian.AppendUint32(b, x)
		case uint64:
			b = binary.BigEndian.AppendUint64(b, x)
		case string:
			b = append(b, x...)
		case []byte:
			b = append(b, x...)
		}
	}
	return b
}

// readFrames are frames in every form the reader reads, each an array.
func readFrames() [][]byte {
	long := strings.Repeat("x", 300)
	return [][]byte{
		mp(0x90),
		mp(0x93, 0x00, 0x7f, 0xff), // fixints
		mp(0x94, 0xe0, 0xc0, 0xc2, 0xc3),
		mp(0x94, 0xcc, 0xff, 0xcd, uint16(65535), 0xce, uint32(1<<32-1), 0xcf, uint64(math.MaxUint64)),
		mp(0x94, 0xd0, 0x80, 0xd1, uint16(0x8000), 0xd2, uint32(0x80000000), 0xd3, uint64(1<<63)),
		mp(0x94, 0xd0, 0x05, 0xd1, uint16(7), 0xd2, uint32(9), 0xd3, uint64(11)),
		mp(0x92, 0xca, math.Float32bits(1.5), 0xcb, math.Float64bits(-2.25)),
		mp(0x92, 0xca, math.Float32bits(float32(math.NaN())), 0xcb, math.Float64bits(math.Inf(-1))),
		mp(0x94, 0xa0, 0xa3, "abc", 0xd9, 3, "def", 0xda, uint16(300), long),
		mp(0x91, 0xdb, uint32(3), "ghi"),
		mp(0x93, 0xc4, 0, 0xc4, 2, "\x00\x01", 0xc5, uint16(1), "z"),
		mp(0x91, 0xc6, uint32(2), "zz"),
		mp(0x92, 0xdc, uint16(2), 0x01, 0x02, 0xdd, uint32(1), 0x90),
		mp(0x92, 0x80, 0x82, 0xa1, "a", 0x01, 0xa1, "b", 0xc0),
		mp(0x92, 0xde, uint16(1), 0xd9, 1, "k", 0x90, 0xdf, uint32(1), 0xa1, "m", 0x80),
		mp(0x91, 0x81, 0xa1, "s", 0xa2, "\xff\xfe"), // not UTF-8
		mp(0xdc, uint16(3), 0x30, 0x01, 0xa1, "t"),
	}
}

// leftFrames are frames the reader leaves to the general decoder.
func leftFrames() [][]byte {
	deep := append(bytes.Repeat([]byte{0x91}, maxReadDepth+1), 0x01)
	return [][]byte{
		nil,
		mp(0x01),                                // not an array
		mp(0x92, 0x01),                          // cut short
		mp(0x91, 0x01, 0x01),                    // a byte after the list
		mp(0x91, 0xd4, 0x01, 0x02),              // fixext 1
		mp(0x91, 0xd6, 0xff, uint32(0)),         // timestamp extension
		mp(0x91, 0xc7, 0x01, 0x05, 0x00),        // ext 8
		mp(0x91, 0x81, 0x01, 0x02),              // an integer key
		mp(0x91, 0x81, 0xc4, 0x01, "k", 0x02),   // a binary key
		mp(0x91, 0xc1),                          // never used
		mp(0x91, 0xdb, uint32(1<<31), "x"),      // longer than the frame
		mp(0x91, 0xdd, uint32(1<<30)),           // more values than bytes
		mp(0x91, 0xdf, uint32(1<<30), 0xa1),     // more pairs than bytes
		mp(0x91, 0xde, uint16(2), 0xa1, "k", 1), // a pair missing
		deep,
	}
}

// TestReadMsgpackForms checks that the reader reads every form clients
// send as ugorji's decoder does, and leaves the others.
func TestReadMsgpackForms(t *testing.T) {
	for _, f := range readFrames() {
		if _, ok := readMsgpackList(f); !ok {
			t.Errorf("% x: left to the general decoder", f)
		}
		sameAsUgorji(t, f)
	}
	for _, f := range leftFrames() {
		if l, ok := readMsgpackList(f); ok {
			t.Errorf("% x: read %#v, want it left alone", f, l)
		}
	}
	if _, ok := readMsgpackList(append(bytes.Repeat([]byte{0x91}, maxReadDepth), 0x01)); !ok {
		t.Errorf("a list nested %d deep is left alone", maxReadDepth)
	}
}

// TestReadMsgpackCopies checks that nothing read shares a byte with the
// frame, which the link reuses.
func TestReadMsgpackCopies(t *testing.T) {
	f := mp(0x93, 0xa3, "abc", 0xc4, 2, "de", 0x81, 0xa1, "k", 0xa1, "v")
	l, ok := readMsgpackList(f)
	if !ok {
		t.Fatal("left alone")
	}
	clear(f)
	want := []any{"abc", []byte("de"), map[string]any{"k": "v"}}
	if d := cmp.Diff(want, l); d != "" {
		t.Errorf("the values changed with the frame (-want +got)\n%s", d)
	}
}

// randomValue returns a value of every kind a client sends, nested up to
// depth levels.
func randomValue(r *rand.Rand, depth int) any {
	n := 12
	if depth == 0 {
		n = 9
	}
	switch r.IntN(n) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return int64(r.Uint64()) >> r.IntN(64)
	case 3:
		return r.Uint64() >> r.IntN(64)
	case 4:
		return r.NormFloat64() * 1e6
	case 5:
		return float32(r.NormFloat64())
	case 6:
		return strings.Repeat("é", r.IntN(40))
	case 7:
		return bytes.Repeat([]byte{byte(r.IntN(256))}, r.IntN(300))
	case 8:
		return strings.Repeat("s", r.IntN(70000)>>r.IntN(16)) // now and then a str32
	case 9, 10:
		l := make([]any, r.IntN(8))
		for i := range l {
			l[i] = randomValue(r, depth-1)
		}
		return l
	}
	m := map[string]any{}
	for range r.IntN(8) {
		m[strings.Repeat("k", r.IntN(40))] = randomValue(r, depth-1)
	}
	return m
}

// TestReadMsgpackRandom compares the reader with ugorji's decoder on
// random messages, as encoded, cut and with one byte changed.
func TestReadMsgpackRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 2026))
	ser := &serialize.MessagePackSerializer{}
	read := 0
	for range 2000 {
		l := []any{wamp.CALL, r.Uint64() >> r.IntN(64), randomValue(r, 3), "p", randomValue(r, 3)}
		f, err := ser.SerializeDataItem(l)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := readMsgpackList(f); ok {
			read++
		}
		sameAsUgorji(t, f)
		sameAsUgorji(t, f[:r.IntN(len(f))])
		g := bytes.Clone(f)
		g[r.IntN(len(g))] = byte(r.IntN(256))
		sameAsUgorji(t, g)
	}
	if read != 2000 {
		t.Errorf("%d of 2000 encoded messages read, want all", read)
	}
}

// FuzzReadMsgpackList compares the reader with ugorji's decoder on any
// frame.
func FuzzReadMsgpackList(f *testing.F) {
	for _, b := range append(readFrames(), leftFrames()...) {
		f.Add(b)
	}
	f.Fuzz(sameAsUgorji)
}

// BenchmarkDecodeAppend decodes an append's CALL: as a link does, against
// the two ways before it (a kept decoder of ugorji's with nexus's options
// into the same list, and nexus's Deserialize) in the same run.
func BenchmarkDecodeAppend(b *testing.B) {
	ser := &serialize.MessagePackSerializer{}
	frame, err := ser.SerializeDataItem([]any{wamp.CALL, 7, map[string]any{}, "append.1.2.samples",
		[]any{map[string]any{"tsp": "2026-11-29T00:00:00.000Z", "seq": 300, "value": 42.5}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeMsgpack(ser, frame); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ugorji-kept", func(b *testing.B) {
		b.ReportAllocs()
		d := codec.NewDecoderBytes(nil, msgpackHandle)
		for b.Loop() {
			var v []any
			d.ResetBytes(frame)
			if err := d.Decode(&v); err != nil || listMessage(wamp.CALL, v) == nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("nexus", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ser.Deserialize(frame); err != nil {
				b.Fatal(err)
			}
		}
	})
}
