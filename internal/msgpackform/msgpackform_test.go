package msgpackform

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"
)

// TestForms checks each writer's bytes at the edges of its forms.
func TestForms(t *testing.T) {
	for _, c := range []struct {
		name string
		got  []byte
		want string // hex
	}{
		{"int 0", AppendInt(nil, 0), "00"},
		{"int 127", AppendInt(nil, 127), "7f"},
		{"int 128", AppendInt(nil, 128), "d10080"},
		{"int 32768", AppendInt(nil, 32768), "d200008000"},
		{"int 2^31", AppendInt(nil, 1<<31), "d30000000080000000"},
		{"int -32", AppendInt(nil, -32), "e0"},
		{"int -33", AppendInt(nil, -33), "d0df"},
		{"int -129", AppendInt(nil, -129), "d1ff7f"},
		{"int -32769", AppendInt(nil, -32769), "d2ffff7fff"},
		{"int min", AppendInt(nil, math.MinInt64), "d38000000000000000"},
		{"uint 127", AppendUint(nil, 127), "7f"},
		{"uint 128", AppendUint(nil, 128), "cc80"},
		{"uint 256", AppendUint(nil, 256), "cd0100"},
		{"uint 65536", AppendUint(nil, 65536), "ce00010000"},
		{"uint max", AppendUint(nil, math.MaxUint64), "cfffffffffffffffff"},
		{"float64", AppendFloat64(nil, 1.5), "cb3ff8000000000000"},
		{"float32", AppendFloat32(nil, 1.5), "ca3fc00000"},
		{"str 0", AppendString(nil, ""), "a0"},
		{"str 31", AppendString(nil, strings.Repeat("a", 31))[:1], "bf"},
		{"str 32", AppendString(nil, strings.Repeat("a", 32))[:2], "d920"},
		{"str 256", AppendString(nil, strings.Repeat("a", 256))[:3], "da0100"},
		{"str 65536", AppendString(nil, strings.Repeat("a", 65536))[:5], "db00010000"},
		{"bin 0", AppendBin(nil, []byte{}), "c400"},
		{"bin 256", AppendBin(nil, make([]byte, 256))[:3], "c50100"},
		{"bin 65536", AppendBin(nil, make([]byte, 65536))[:5], "c600010000"},
		{"array 15", AppendArrayHeader(nil, 15), "9f"},
		{"array 16", AppendArrayHeader(nil, 16), "dc0010"},
		{"array 65536", AppendArrayHeader(nil, 65536), "dd00010000"},
		{"map 15", AppendMapHeader(nil, 15), "8f"},
		{"map 16", AppendMapHeader(nil, 16), "de0010"},
		{"map 65536", AppendMapHeader(nil, 65536), "df00010000"},
	} {
		if got := fmt.Sprintf("%x", c.got); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// TestAppendScalar checks which types AppendScalar writes, and that it
// leaves b as it was for the others.
func TestAppendScalar(t *testing.T) {
	for _, c := range []struct {
		v    any
		want string
	}{
		{nil, "c0"}, {true, "c3"}, {false, "c2"}, {"ab", "a26162"}, {int8(-1), "ff"}, {int16(300), "d1012c"},
		{int32(-40), "d0d8"}, {int64(7), "07"}, {7, "07"}, {uint8(200), "ccc8"}, {uint16(7), "07"},
		{uint32(70000), "ce00011170"}, {uint64(1), "01"}, {uint(1), "01"}, {float32(0), "ca00000000"},
		{0.0, "cb0000000000000000"}, {[]byte(nil), "c0"}, {[]byte{9}, "c40109"},
	} {
		b, ok := AppendScalar([]byte{0x91}, c.v)
		if got := fmt.Sprintf("%x", b[1:]); !ok || b[0] != 0x91 || got != c.want {
			t.Errorf("%T %v: %s (%v), want %s", c.v, c.v, got, ok, c.want)
		}
	}
	type named int
	for _, v := range []any{named(1), []any{}, map[string]any{}, struct{}{}, &struct{}{}} {
		if b, ok := AppendScalar([]byte{0x91}, v); ok || !bytes.Equal(b, []byte{0x91}) {
			t.Errorf("%T: written (% x)", v, b)
		}
	}
}

// ExampleAppendScalar writes the list [7, "on", -1.5] as a nexus peer
// would.
func ExampleAppendScalar() {
	b := AppendArrayHeader(nil, 3)
	for _, v := range []any{7, "on", -1.5} {
		b, _ = AppendScalar(b, v)
	}
	fmt.Printf("% x\n", b)
	// Output: 93 07 a2 6f 6e cb bf f8 00 00 00 00 00 00
}
