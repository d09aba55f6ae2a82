// This file holds FuzzEncode, the fuzz target of the encoder, and the
// checks the encoder and decoder fuzz targets share.

package client

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/internal/wirevalue"
)

// fuzzRecord has a field of every kind the encoder treats apart.
type fuzzRecord struct {
	Name   string           `json:"name"`
	Small  int8             `json:"small"`
	N      int64            `json:"n"`
	U      uint64           `json:"u"`
	F      float64          `json:"f"`
	F32    float32          `json:"f32"`
	OK     bool             `json:"ok"`
	Blob   []byte           `json:"blob"`
	At     time.Time        `json:"at"`
	When   *time.Time       `json:"when,omitempty"`
	Quoted int64            `json:"quoted,string"`
	Note   *string          `json:"note"`
	Labels map[string]int64 `json:"labels"`
	ByKey  map[int64]string `json:"by_key"`
	List   []float64        `json:"list"`
	Inner  fuzzInner        `json:"inner"`
	Hidden int              `json:"-"`
}

type fuzzInner struct {
	S string `json:"s"`
	B []byte `json:"b,omitempty"`
}

// FuzzEncode builds Go values from the fuzzer's input (a struct with a
// field of every kind, times of any year and zone, and whatever JSON the
// input holds) and checks that encoding never panics, yields the wire form,
// writes every time as RFC 3339 in UTC or refuses it when its year is
// outside 0000–9999, is a fixed point on wire values, survives the msgpack
// serializer unchanged, and that decoding the serialized encoding gives the
// struct back.
func FuzzEncode(f *testing.F) {
	t0 := time.Date(2026, 10, 8, 14, 0, 0, 123000000, time.FixedZone("CEST", 2*3600))
	f.Add("héllo", int64(42), uint64(7), 2.0, []byte{1, 2, 3}, true, []byte(`[1,"a",null]`))
	f.Add("a\xffb", int64(-3), uint64(math.MaxUint64), math.NaN(), []byte(nil), false, []byte(`{"v":3,"f":1.5}`))
	f.Add("", t0.UnixNano(), uint64(math.MaxInt64), 0.1, []byte{}, true, []byte(`12`))
	f.Add("x/y", int64(math.MinInt64), uint64(1)<<63, math.Inf(-1), []byte("b"), false, []byte(`{"l":[1.5,"2026-01-15T10:30:00Z",{"f":0.5}],"big":18446744073709551615}`))
	f.Add("2026-01-15T10:30:00Z", int64(1768473000000), uint64(0), math.Copysign(0, -1), []byte{0}, true, []byte(`1e400`))
	f.Add("far", int64(253402300800), uint64(999999999), 1.0, []byte{}, true, []byte(`{}`)) // 10000-01-01 in UTC
	f.Add("zone", int64(-62167219201), uint64(5), 1.0, []byte{}, false, []byte(`0`))        // one second before year 0
	f.Add("secs", int64(3601), uint64(0), 1.0, []byte{}, true, []byte(`0`))                 // an offset of 1 h 0 min 1 s
	f.Fuzz(func(t *testing.T, s string, n int64, u uint64, fl float64, b []byte, flag bool, js []byte) {
		// Any offset up to ±14 h, seconds included: times travel in UTC.
		zone := time.FixedZone("X", int(n%50400))
		at := time.Unix(0, n).In(zone)
		rec := fuzzRecord{
			Name: s, Small: int8(n), N: n, U: u, F: fl, F32: float32(fl), OK: flag, Blob: b, At: at,
			Quoted: n, Labels: map[string]int64{s: n}, ByKey: map[int64]string{n: s},
			List: []float64{fl, float64(n)}, Inner: fuzzInner{S: s, B: b}, Hidden: 1,
		}
		if flag {
			rec.When, rec.Note = &at, &s
		}
		enc, err := encodeValue(rec, "v")
		if err != nil {
			t.Fatalf("encodeValue(%#v): %v", rec, err)
		}
		checkEncoded(t, enc)
		utc := at.UTC().Format(time.RFC3339Nano)
		if m := enc.(map[string]any); m["at"] != utc || flag && m["when"] != utc {
			t.Fatalf("times not written in UTC: at %v, when %v; want %s", m["at"], m["when"], utc)
		}
		checkFarTime(t, time.Unix(n, int64(u%1e9)).In(zone))
		got, err := Decode[fuzzRecord](throughMsgPack(t, enc))
		if err != nil {
			t.Fatalf("decode of the serialized encoding %#v: %v", enc, err)
		}
		if diff := cmp.Diff(validRecord(rec), got, cmpopts.EquateNaNs(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("encode, msgpack, decode changed the record (-want +got):\n%s", diff)
		}

		dec := json.NewDecoder(bytes.NewReader(js))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return
		}
		enc, err = encodeValue(v, "v")
		switch {
		case err == nil:
			checkEncoded(t, enc)
		case !strings.Contains(err.Error(), "invalid number") && !strings.Contains(err.Error(), "nested deeper"):
			// Only numbers beyond float64 and values nested too deep are refused.
			t.Fatalf("encodeValue(%#v): %v", v, err)
		}
	})
}

// checkFarTime checks a time of any year, directly, through a pointer, as
// a map key and embedded in a struct: written as RFC 3339 in UTC when its
// UTC year is within 0000–9999, else refused.
func checkFarTime(t *testing.T, at time.Time) {
	t.Helper()
	utc := at.UTC().Format(time.RFC3339Nano)
	writable := at.UTC().Year() >= 0 && at.UTC().Year() <= 9999
	for name, v := range map[string]any{"time": at, "pointer": &at, "map key": map[time.Time]int{at: 1}} {
		enc, err := encodeValue(v, "v")
		switch {
		case !writable && (err == nil || !strings.Contains(err.Error(), "outside the years 0000–9999")):
			t.Fatalf("%s %v (UTC year %d): encodeValue = %#v, %v; want a refusal", name, at, at.UTC().Year(), enc, err)
		case writable && err != nil:
			t.Fatalf("%s %v: encodeValue: %v", name, at, err)
		case writable && name != "map key" && enc != utc:
			t.Fatalf("%s %v: encoded %#v, want %s", name, at, enc, utc)
		case writable && name == "map key" && !cmp.Equal(enc, map[string]any{utc: int64(1)}):
			t.Fatalf("%s %v: encoded %#v, want the key %s", name, at, enc, utc)
		}
	}
	// A struct embedding a time is written as the time; the time's own
	// MarshalJSON refuses years outside 0000–9999 in its zone.
	if enc, err := encodeValue(stamp{at}, "v"); err == nil && enc != utc {
		t.Fatalf("embedded %v: encoded %#v, want %s", at, enc, utc)
	} else if err != nil && writable && at.Year() >= 0 && at.Year() <= 9999 {
		t.Fatalf("embedded %v: encodeValue: %v", at, err)
	}
}

// checkEncoded checks an encoder's result: wire form, a fixed point of the
// encoder, unchanged through the msgpack serializer.
func checkEncoded(t *testing.T, enc any) {
	t.Helper()
	checkWire(t, enc, "v")
	again, err := encodeValue(enc, "v")
	if err != nil {
		t.Fatalf("encodeValue of the wire value %#v: %v", enc, err)
	}
	if diff := cmp.Diff(enc, again, cmpopts.EquateNaNs()); diff != "" {
		t.Fatalf("encoding a wire value changed it (-first +second):\n%s", diff)
	}
	if diff := cmp.Diff(enc, throughMsgPack(t, enc), cmpopts.EquateNaNs()); diff != "" {
		t.Fatalf("the msgpack serializer changed the wire value (-sent +received):\n%s", diff)
	}
}

// checkWire fails unless v holds only the wire types: map[string]any,
// []any, valid UTF-8 strings, int64, uint64 above math.MaxInt64, float64,
// bool, []byte and nil.
func checkWire(t *testing.T, v any, path string) {
	t.Helper()
	switch x := v.(type) {
	case nil, bool, int64, float64, []byte:
	case string:
		if !utf8.ValidString(x) {
			t.Fatalf("%s: invalid UTF-8 %q", path, x)
		}
	case uint64:
		if x <= math.MaxInt64 {
			t.Fatalf("%s: uint64 %d fits an int64", path, x)
		}
	case map[string]any:
		for k, e := range x {
			if !utf8.ValidString(k) {
				t.Fatalf("%s: invalid UTF-8 key %q", path, k)
			}
			checkWire(t, e, path+"."+k)
		}
	case []any:
		for _, e := range x {
			checkWire(t, e, path+"[]")
		}
	default:
		t.Fatalf("%s: %T is not a wire type", path, v)
	}
}

// throughMsgPack sends v through the msgpack serializer the platform uses
// and normalises what comes out, as the engine does with every payload.
func throughMsgPack(t *testing.T, v any) any {
	t.Helper()
	ser := &serialize.MessagePackSerializer{}
	b, err := ser.SerializeDataItem(v)
	if err != nil {
		t.Fatalf("msgpack cannot carry %#v: %v", v, err)
	}
	var out any
	if err := ser.DeserializeDataItem(b, &out); err != nil {
		t.Fatalf("msgpack cannot read back %#v: %v", v, err)
	}
	return wirevalue.Normalize(out, false)
}

// validRecord is rec as it comes back from the wire: strings are valid
// UTF-8, times are in UTC, the hidden field is lost.
func validRecord(rec fuzzRecord) fuzzRecord {
	rec.Name = validString(rec.Name)
	rec.Inner.S = validString(rec.Inner.S)
	if rec.Note != nil {
		note := validString(*rec.Note)
		rec.Note = &note
	}
	labels := map[string]int64{}
	for k, v := range rec.Labels {
		labels[validString(k)] = v
	}
	byKey := map[int64]string{}
	for k, v := range rec.ByKey {
		byKey[k] = validString(v)
	}
	rec.Labels, rec.ByKey, rec.Hidden = labels, byKey, 0
	rec.At = rec.At.UTC()
	if rec.When != nil {
		when := rec.When.UTC()
		rec.When = &when
	}
	return rec
}
