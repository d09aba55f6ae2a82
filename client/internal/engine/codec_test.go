// This file tests the engine's codec against nexus's serializers (see
// codec_ref_test.go), both ways and in both formats, for every message
// type the engine sends and receives.

package engine

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/nexuspayload"
)

// codecValues are values of every form and size boundary of the wire form.
func codecValues() []any {
	vals := []any{nil, true, false, "", "x", strings.Repeat("s", 31), strings.Repeat("s", 32), strings.Repeat("s", 255),
		strings.Repeat("s", 256), strings.Repeat("s", 65535), strings.Repeat("s", 65536),
		"quote \" backslash \\ control \x01\n\t\r nul \x00 <html> & é 漢 \u2028", "\x00AQI=", "bad utf-8 \xff\xfe",
		[]byte{}, []byte{1, 2}, bytes.Repeat([]byte{7}, 255), bytes.Repeat([]byte{7}, 256), bytes.Repeat([]byte{7}, 70000),
		1.5, 2.0, 1e21, 1e-7, 123456789.0, 0.1, math.Inf(-1), math.NaN(), math.MaxFloat64, math.SmallestNonzeroFloat64,
		float32(0.25), float32(3), math.Copysign(0, -1),
		[]any{}, []any{nil}, map[string]any{}, map[string]any{"k": []any{int64(1), "v"}},
		make([]any, 15), make([]any, 16),
		[]byte(nil), []any(nil), map[string]any(nil),
	}
	for _, i := range []int64{0, 1, 127, 128, 255, 256, math.MaxInt16, math.MaxInt16 + 1, math.MaxUint16, math.MaxUint16 + 1,
		math.MaxInt32, math.MaxInt32 + 1, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64,
		-1, -32, -33, -128, -129, math.MinInt16, math.MinInt16 - 1, math.MinInt32, math.MinInt32 - 1, math.MinInt64} {
		vals = append(vals, i)
		if int64(int(i)) == i {
			vals = append(vals, int(i))
		}
	}
	for _, u := range []uint64{0, 127, 128, 255, 256, math.MaxUint16, math.MaxUint16 + 1, math.MaxUint32, math.MaxUint32 + 1, math.MaxInt64 + 1, math.MaxUint64} {
		vals = append(vals, u)
	}
	return append(vals, int32(-70000), uint32(70000), int8(-5), int16(300), uint8(200), uint16(60000), uint(7))
}

// bigDict has 16 keys: a map16 header.
func bigDict() map[string]any {
	d := map[string]any{}
	for i := range 16 {
		d[strings.Repeat("k", i+1)] = int64(i)
	}
	return d
}

// sent are the messages the engine sends, carrying v in every place a
// value goes.
func sent(v any) []message {
	return []message{
		&publishMsg{Request: 1, Options: map[string]any{"acknowledge": true}, Topic: "com.example.t", Args: []any{v}},
		&publishMsg{Request: 1 << 40, Options: map[string]any{}, Topic: "t", Kwargs: map[string]any{"v": v}},
		&callMsg{Request: 300, Options: map[string]any{"timeout": int64(5000)}, Procedure: "p", Args: []any{v, v}, Kwargs: map[string]any{"v": v}},
		&yieldMsg{Request: 70000, Options: map[string]any{}, Args: []any{v}},
		&errorMsg{Type: mtInvocation, Request: 5, Details: map[string]any{"v": v}, Error: "com.example.e", Args: []any{v}},
		&helloMsg{Realm: "realm-1-2-dev", Details: map[string]any{"authid": "a", "v": v}},
		&authenticateMsg{Signature: "sig", Extra: map[string]any{"v": v}},
		&goodbyeMsg{Details: map[string]any{"v": v}, Reason: "wamp.close.close_realm"},
		&subscribeMsg{Request: 7, Options: map[string]any{"match": "prefix", "v": v}, Topic: "t"},
		&unsubscribeMsg{Request: 8, Subscription: 1 << 53},
		&registerMsg{Request: 9, Options: map[string]any{"v": v}, Procedure: "p"},
		&unregisterMsg{Request: 10, Registration: math.MaxUint32 + 1},
		&cancelMsg{Request: 11, Options: map[string]any{"mode": "killnowait", "v": v}},
	}
}

// received are the messages a router sends the engine, carrying v in
// every place a value goes.
func received(v any) []wamp.Message {
	return []wamp.Message{
		&wamp.Welcome{ID: 1 << 53, Details: wamp.Dict{"authid": "a", "v": v}},
		&wamp.Challenge{AuthMethod: "wampcra", Extra: wamp.Dict{"challenge": "c", "v": v}},
		&wamp.Goodbye{Details: wamp.Dict{"v": v}, Reason: "wamp.close.system_shutdown"},
		&wamp.Error{Type: wamp.CALL, Request: 6, Details: wamp.Dict{"v": v}, Error: "com.example.error", Arguments: wamp.List{v}},
		&wamp.Error{Type: wamp.SUBSCRIBE, Request: 6, Details: wamp.Dict{}, Error: "wamp.error.not_authorized", ArgumentsKw: wamp.Dict{"v": v}},
		&wamp.Published{Request: 1, Publication: wamp.ID(math.MaxInt64 + 5)},
		&wamp.Subscribed{Request: 2, Subscription: math.MaxUint32},
		&wamp.Unsubscribed{Request: 3},
		&wamp.Event{Subscription: 3, Publication: 1 << 50, Details: wamp.Dict{"topic": "a.b", "v": v}, Arguments: wamp.List{v}, ArgumentsKw: wamp.Dict{"v": v}},
		&wamp.Result{Request: 2, Details: wamp.Dict{"progress": true, "v": v}, Arguments: wamp.List{v}},
		&wamp.Result{Request: 2, Details: wamp.Dict{}, ArgumentsKw: wamp.Dict{"v": v}},
		&wamp.Registered{Request: 4, Registration: math.MaxUint32 + 1},
		&wamp.Unregistered{Request: 5},
		&wamp.Invocation{Request: 4, Registration: 5, Details: wamp.Dict{"caller": int64(7), "v": v}, Arguments: wamp.List{v, v}},
		&wamp.Interrupt{Request: 5, Options: wamp.Dict{"mode": "kill", "v": v}},
	}
}

// TestCodecWritesAsNexus encodes every message the engine sends, with
// values of every form, in both formats: nexus reads each as it reads its
// own encoding, and in msgpack the bytes are nexus's (maps of one key,
// whose order is fixed).
func TestCodecWritesAsNexus(t *testing.T) {
	vals := append(codecValues(), bigDict(), []any{bigDict(), []any{[]any{"deep"}}})
	for _, json := range []bool{false, true} {
		for _, v := range vals {
			for _, m := range sent(v) {
				checkWrite(t, m, json)
			}
		}
	}
	for _, v := range codecValues() {
		for _, m := range sent(v) {
			if !fixedOrder(toNexus(m)) {
				continue
			}
			want, err := nexusWrite(toNexus(m), false)
			if err != nil {
				t.Fatal(err)
			}
			if got, _ := encode(nil, false, m); !bytes.Equal(got, want) {
				t.Fatalf("%#v:\n got %x\nwant %x", m, got, want)
			}
		}
	}
	// Payloads of every size class and shape, and empty payloads.
	for _, json := range []bool{false, true} {
		for _, m := range []message{
			&publishMsg{Request: 2, Options: map[string]any{}, Topic: "t", Args: make([]any, 65536)},
			&publishMsg{Request: 2, Options: map[string]any{}, Topic: "t"},
			&publishMsg{Request: 2, Options: nil, Topic: "t", Args: []any{}, Kwargs: map[string]any{}},
			&callMsg{Request: 3, Options: map[string]any{}, Procedure: "p", Kwargs: map[string]any{"only": "kwargs"}},
			&yieldMsg{Request: 4, Options: map[string]any{}},
			&yieldMsg{Request: 4, Options: map[string]any{}, Args: []any{}, Kwargs: map[string]any{"a": nil}},
			&errorMsg{Type: mtInvocation, Request: 5, Details: map[string]any{}, Error: "e", Args: []any{}, Kwargs: map[string]any{"k": 1}},
		} {
			checkWrite(t, m, json)
		}
	}
}

// fixedOrder reports whether msg's dictionaries have one key at most, so
// that its encoding is one byte sequence.
func fixedOrder(msg wamp.Message) bool {
	ds := dicts(msg)
	if _, kwargs, ok := nexuspayload.Of(msg); ok {
		ds = append(ds, kwargs)
	}
	for _, d := range ds {
		if len(*d) > 1 {
			return false
		}
	}
	return true
}

// TestCodecRefuses checks what the engine does not write: values outside
// the wire form, nesting beyond maxDepth, messages a client never sends.
func TestCodecRefuses(t *testing.T) {
	deep := any("leaf")
	for range maxDepth + 2 {
		deep = []any{deep}
	}
	for _, json := range []bool{false, true} {
		for _, v := range []any{struct{}{}, map[string]string{}, []string{}, complex(1, 2), deep} {
			_, err := encode(nil, json, &publishMsg{Request: 1, Options: map[string]any{}, Topic: "t", Args: []any{v}})
			if err == nil || !strings.Contains(err.Error(), "encode PUBLISH") {
				t.Errorf("%s %T: err = %v, want an encode error", format(json), v, err)
			}
		}
		if _, err := encode(nil, json, &eventMsg{}); err == nil {
			t.Errorf("%s: EVENT encoded", format(json))
		}
	}
}

// TestCodecReadsAsNexus decodes every message a router sends, with values
// of every form, in both formats, as nexus reads it.
func TestCodecReadsAsNexus(t *testing.T) {
	vals := append(codecValues(), bigDict(), []any{bigDict(), []any{[]any{"deep"}}})
	for _, json := range []bool{false, true} {
		keys := &keyCache{}
		for _, v := range vals {
			for _, m := range received(v) {
				checkRead(t, m, json, keys)
			}
		}
		for _, m := range []wamp.Message{
			&wamp.Result{Request: 2, Details: wamp.Dict{}, Arguments: make(wamp.List, 65536)},
			&wamp.Result{Request: 2, Details: nil},
			&wamp.Event{Subscription: 3, Publication: 4, Details: wamp.Dict{}},
			&wamp.Error{Type: wamp.INVOCATION, Request: 6, Details: wamp.Dict{}, Error: "e", Arguments: wamp.List{}, ArgumentsKw: wamp.Dict{"k": []byte{}}},
		} {
			checkRead(t, m, json, keys)
		}
	}
}

// TestCodecReadsRevocation reads the UNREGISTERED with request 0 a router
// sends when another session took a registration over.
func TestCodecReadsRevocation(t *testing.T) {
	for _, json := range []bool{false, true} {
		b, err := nexusSer(json).SerializeDataItem([]any{int64(mtUnregistered), 0, map[string]any{"registration": int64(math.MaxUint32 + 1), "reason": "wamp.error.unregistered"}})
		if err != nil {
			t.Fatal(err)
		}
		msg, err := decode(b, json, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(&unregisteredMsg{Registration: math.MaxUint32 + 1}, msg); diff != "" {
			t.Errorf("%s (-want +got):\n%s", format(json), diff)
		}
	}
}

// TestCodecReadsWidths reads integers of every width on any architecture:
// a 32-bit device reads the unsigned 4294967295 as that, not as -1.
func TestCodecReadsWidths(t *testing.T) {
	for _, c := range []struct {
		raw  []byte
		want any
	}{
		{[]byte{0xce, 0xff, 0xff, 0xff, 0xff}, int64(math.MaxUint32)},
		{[]byte{0xd2, 0x80, 0, 0, 0}, int64(math.MinInt32)},
		{[]byte{0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, uint64(math.MaxUint64)},
		{[]byte{0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0}, int64(math.MinInt64)},
		{[]byte{0xcd, 0xff, 0xff}, int64(math.MaxUint16)},
	} {
		// [RESULT, 4294967295, {}, [value]]
		raw := append([]byte{0x94, 50, 0xce, 0xff, 0xff, 0xff, 0xff, 0x80, 0x91}, c.raw...)
		msg, err := decode(raw, false, nil, nil)
		if err != nil {
			t.Fatalf("%x: %v", raw, err)
		}
		r := msg.(*resultMsg)
		if r.Request != math.MaxUint32 || r.Args[0] != c.want {
			t.Errorf("%x: request %d, value %#v; want %d, %#v", raw, r.Request, r.Args[0], uint64(math.MaxUint32), c.want)
		}
	}
	// A length that does not fit the bytes left, in every 32-bit form.
	for _, raw := range [][]byte{
		{0x94, 50, 1, 0x80, 0xdd, 0xff, 0xff, 0xff, 0xff},
		{0x94, 50, 1, 0x80, 0x91, 0xdb, 0x80, 0, 0, 0},
		{0x94, 50, 1, 0x80, 0x91, 0xc6, 0xff, 0xff, 0xff, 0xff},
		{0x94, 50, 1, 0x80, 0x91, 0xdf, 0x7f, 0xff, 0xff, 0xff},
	} {
		if _, err := decode(raw, false, nil, nil); err == nil {
			t.Errorf("%x read", raw)
		}
	}
}

// TestCodecReadsJSONNumbers reads the numbers of JSON by their form:
// integers as int64 (uint64 above math.MaxInt64), the rest as float64,
// integers beyond 64 bits included (JavaScript writes large floats so).
func TestCodecReadsJSONNumbers(t *testing.T) {
	msg, err := decode([]byte(`[50,1,{},[2,2.0,-0,-0.0,1e3,1E-2,9223372036854775808,18446744073709551616,-9223372036854775809,100000000000000000000]]`), true, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []any{int64(2), 2.0, int64(0), math.Copysign(0, -1), 1000.0, 0.01, uint64(math.MaxInt64 + 1), 18446744073709551616.0, -9223372036854775809.0, 1e20}
	if diff := cmp.Diff(want, msg.(*resultMsg).Args); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestCodecReadsJSONStrings reads the escapes of JSON strings, surrogate
// pairs, lone surrogates (U+FFFD) and invalid UTF-8 (kept as it is).
func TestCodecReadsJSONStrings(t *testing.T) {
	raw := " [ 50 , 1 , { \"k\u00e9y\" : \"\\u0000\" } , [\"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00e9\\ud83d\\ude00\\ud800x\\udc00\", \"\xff\xfeé\", \"\", true, false, null, \"\\u0000AQI=\", \"\\u0000!\"] ] \n"
	msg, err := decode([]byte(raw), true, &keyCache{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r := msg.(*resultMsg)
	want := &resultMsg{Request: 1, Details: map[string]any{"kéy": "\x00"},
		Args: []any{"a\"b\\c/\b\f\n\r\té😀\ufffdx\ufffd", "\xff\xfeé", "", true, false, nil, []byte{1, 2}, "\x00!"}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("%s (-want +got):\n%s", raw, diff)
	}
}

// TestCodecRefusesMalformed checks what the engine does not read, where
// nexus may be lenient: broken input, forms outside the wire form and
// messages of the wrong shape are errors, never a wrong message; a type
// the engine does not handle is an otherMsg.
func TestCodecRefusesMalformed(t *testing.T) {
	for _, json := range []bool{false, true} {
		for _, raw := range [][]any{
			{int64(mtResult), int64(1), map[string]any{}, []any{int64(1)}, map[string]any{}, "extra"},
			{int64(mtEvent), int64(1), int64(2), map[string]any{}, "not a list"},
			{int64(mtEvent), int64(1), int64(2), map[string]any{}, []any{}, []any{}},
			{int64(mtResult), "not an id", map[string]any{}},
			{int64(mtResult), 1.5, map[string]any{}},
			{int64(mtPublished), int64(1)},
			{int64(mtWelcome), int64(1), "not a dict"},
			{int64(mtChallenge), int64(1), map[string]any{}},
			{"not a type"},
			{},
		} {
			b, err := nexusSer(json).SerializeDataItem(raw)
			if err != nil {
				t.Fatal(err)
			}
			if msg, err := decode(b, json, nil, nil); err == nil {
				t.Errorf("%s %v read as %#v", format(json), raw, msg)
			}
		}
		b, _ := nexusSer(json).SerializeDataItem([]any{int64(mtHello), "realm", map[string]any{}})
		if msg, err := decode(b, json, nil, nil); err != nil || msg != (otherMsg{typ: mtHello}) {
			t.Errorf("%s HELLO from the router: %#v, %v; want an otherMsg", format(json), msg, err)
		}
	}
	b, _ := nexusSer(false).Serialize(&wamp.Result{Request: 1, Details: wamp.Dict{}, Arguments: wamp.List{"abc"}})
	for i := range b {
		if _, err := decode(b[:i], false, nil, nil); err == nil {
			t.Errorf("truncated at %d: read", i)
		}
	}
	for _, raw := range []string{`[50,1,{}`, `[50,1,{}] [`, `[50,1,{},[1e400]]`, `[50,1,{},[-1e400]]`, `{"a":1}`, `null`, ``,
		`[50,1,{},[01]]`, `[50,1,{},[1.]]`, `[50,1,{},[.5]]`, `[50,1,{},[1e]]`, `[50,1,{},[-]]`, `[50,1,{},[+1]]`, `[50,1,{},[tru]]`,
		`[50,1,{},["a` + "\n" + `"]]`, `[50,1,{},["\x"]]`, `[50,1,{},["\u12"]]`, `[50,1,{},["\u12g4"]]`, `[50,1,{},["abc]]`,
		`[50,1,{"a" 1}]`, `[50,1,{"a":1,"a":2}]`, `[50,1,{"a":1,}]`, `[50,1,{a:1}]`, `[50,1,{},[1,]]`, `[50,1,{},[1 2]]`, `[50 1]`} {
		if _, err := decode([]byte(raw), true, nil, nil); err == nil {
			t.Errorf("JSON %s read", raw)
		}
	}
	// A map with an integer key, one repeating a key, an extension other
	// than the timestamp.
	for _, raw := range [][]byte{
		{0x94, 50, 1, 0x81, 0x01, 0x01},
		{0x94, 50, 1, 0x82, 0xa1, 'k', 1, 0xa1, 'k', 2},
		{0x94, 50, 1, 0x80, 0x91, 0xd4, 0x05, 7},
	} {
		if _, err := decode(raw, false, nil, nil); err == nil {
			t.Errorf("%x read", raw)
		}
	}
	var deep []byte
	for range maxDepth + 2 {
		deep = append(deep, 0x91)
	}
	if _, err := decode(append([]byte{0x94, 50, 1, 0x80}, append(deep, 1)...), false, nil, nil); err == nil {
		t.Error("values nested beyond maxDepth read")
	}
	if _, err := decode([]byte(`[50,1,{},`+strings.Repeat("[", maxDepth+2)+strings.Repeat("]", maxDepth+2)+`]`), true, nil, nil); !errors.Is(err, errDepth) {
		t.Errorf("JSON nested beyond maxDepth: %v", err)
	}
}
