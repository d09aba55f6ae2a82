// This file tests the lazy read (lazy.go) against decode, the validating
// skips against the parsers, and the Reader against the payload decode
// builds: on every message of codecValues and on arbitrary input.

package engine

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// lazyMessages are encoded messages of the three types read lazily,
// carrying every value of codecValues, with details the lazy read takes.
func lazyMessages(t testing.TB, json bool) [][]byte {
	var out [][]byte
	for _, v := range append(codecValues(), bigDict()) {
		for _, m := range []wamp.Message{
			&wamp.Published{Request: 1, Publication: 1 << 60},
			&wamp.Result{Request: 2, Details: wamp.Dict{"progress": true, "v": v}, Arguments: wamp.List{v}},
			&wamp.Result{Request: 1 << 53, Details: wamp.Dict{}, ArgumentsKw: wamp.Dict{"v": v}},
			&wamp.Result{Request: 3, Details: wamp.Dict{"progress": v}},
			&wamp.Invocation{Request: 4, Registration: 5, Details: wamp.Dict{"caller": int64(7), "caller_authid": "3b1f2c9e-6d4a-4f0e-9a7b-2c8d1e5f6a70",
				"timeout": int64(5000), "receive_progress": true, "v": v}, Arguments: wamp.List{v, v}},
			&wamp.Invocation{Request: 6, Registration: 7, Details: wamp.Dict{"timeout": v, "caller": v, "caller_authid": v, "receive_progress": v},
				Arguments: wamp.List{}, ArgumentsKw: wamp.Dict{"v": v}},
		} {
			b, err := nexusWrite(m, json)
			if err != nil {
				continue // a value nexus does not write in this format
			}
			out = append(out, b)
		}
	}
	return out
}

// checkLazy holds the lazy read of b to decode's: both fail, or they read
// the same message; the payload read with a Reader is the one decode
// builds; and the lazy read takes every PUBLISHED, RESULT and INVOCATION
// decode reads.
func checkLazy(t *testing.T, b []byte, json bool) {
	t.Helper()
	want, werr := decode(b, json, &keyCache{}, nil)
	var keys keyCache
	var lz *lazyMsgs
	got := decodeLazy(b, json, &keys, &lz)
	if got == nil {
		if werr == nil {
			switch want.(type) {
			case *publishedMsg, *resultMsg, *invocationMsg:
				t.Fatalf("%q: the lazy read left a %s decode reads", b, want.kind())
			}
		}
		return
	}
	var raw rawPayload
	var args []any
	var kwargs map[string]any
	var gerr error
	switch m := got.(type) {
	case *resultMsg:
		raw = m.raw
		args, kwargs, gerr = raw.decode(&keys, nil)
	case *invocationMsg:
		raw = m.raw
		args, kwargs, gerr = raw.decode(&keys, nil)
	}
	if cerr := raw.check(); raw.lazy && (cerr == nil) != (gerr == nil) {
		t.Fatalf("%q: check says %v, decode says %v", b, cerr, gerr)
	}
	if werr != nil {
		if gerr == nil {
			t.Fatalf("%q: decode fails (%v), the lazy read does not", b, werr)
		}
		return
	}
	if gerr != nil {
		t.Fatalf("%q: the lazy read fails (%v), decode does not", b, gerr)
	}
	opts := []cmp.Option{cmp.AllowUnexported(resultMsg{}, invocationMsg{}, invocationDetails{}),
		cmpopts.IgnoreFields(resultMsg{}, "Details", "raw"), cmpopts.IgnoreFields(invocationMsg{}, "Details", "raw"), cmpopts.EquateNaNs()}
	switch m := got.(type) {
	case *resultMsg:
		m.Args, m.Kwargs = args, kwargs
		w := want.(*resultMsg)
		if reflect.DeepEqual([]any{w.Request, w.progress, w.Args, w.Kwargs}, []any{m.Request, m.progress, m.Args, m.Kwargs}) {
			got = want // cmp takes long over large values: asked only when they differ
		}
	case *invocationMsg:
		m.Args, m.Kwargs = args, kwargs
		w := want.(*invocationMsg)
		if reflect.DeepEqual([]any{w.Request, w.Registration, w.invocationDetails, w.Args, w.Kwargs},
			[]any{m.Request, m.Registration, m.invocationDetails, m.Args, m.Kwargs}) {
			got = want
		}
	}
	if diff := cmp.Diff(want, got, opts...); diff != "" {
		t.Fatalf("%q (-decode +lazy):\n%s", b, diff)
	}
	if raw.lazy {
		var r Reader
		r.reset(raw)
		var read []any
		for r.Next() {
			read = append(read, readAll(t, &r))
		}
		var built []any
		if args != nil || kwargs != nil || len(read) > 0 {
			built = append(built, nilIfEmpty(args))
		}
		if kwargs != nil || len(read) > 1 {
			built = append(built, nilIfEmptyMap(kwargs))
		}
		if err := r.Err(); err != nil {
			t.Fatalf("%q: Reader: %v", b, err)
		}
		// cmp takes long over large values: it is asked only when they differ.
		if reflect.DeepEqual(built, read) {
			return
		}
		if diff := cmp.Diff(built, read, cmpopts.EquateNaNs(), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("%q: the Reader reads the payload otherwise (-decode +Reader):\n%s", b, diff)
		}
	}
}

func nilIfEmpty(l []any) any {
	if l == nil {
		return nil
	}
	return l
}

func nilIfEmptyMap(m map[string]any) any {
	if m == nil {
		return nil
	}
	return m
}

// readAll reads the value at r's cursor through the Reader's API alone.
func readAll(t *testing.T, r *Reader) any {
	t.Helper()
	switch k := r.Kind(); k {
	case KindNil:
		r.Skip()
		return nil
	case KindBool:
		return r.Bool()
	case KindInt:
		return r.Int()
	case KindUint:
		return r.Uint()
	case KindFloat:
		return r.Float()
	case KindString:
		return r.String()
	case KindBinary:
		return append([]byte{}, r.Text()...)
	case KindList:
		l := []any{}
		r.List()
		for r.Next() {
			l = append(l, readAll(t, r))
		}
		return l
	case KindMap:
		m := map[string]any{}
		r.Map()
		for r.Next() {
			k := string(r.Key())
			m[k] = readAll(t, r)
		}
		return m
	case KindOther:
		return r.Value()
	default:
		t.Fatalf("kind %d at the cursor (%v)", k, r.Err())
		return nil
	}
}

func TestLazyReadsAsDecode(t *testing.T) {
	for _, json := range []bool{false, true} {
		t.Run(format(json), func(t *testing.T) {
			for _, b := range lazyMessages(t, json) {
				checkLazy(t, b, json)
			}
		})
	}
}

// TestLazyRefusesAsDecode checks malformed messages of the lazy types:
// whatever decode refuses, the lazy read refuses, in its header or in
// the payload dispatch reads.
func TestLazyRefusesAsDecode(t *testing.T) {
	for _, json := range []bool{false, true} {
		for i, raw := range [][]any{
			{int64(mtResult), int64(1), map[string]any{}, []any{int64(1)}, map[string]any{}, "extra"},
			{int64(mtResult), int64(1), map[string]any{}, "not a list"},
			{int64(mtResult), int64(1), map[string]any{}, []any{}, "not a dict"},
			{int64(mtResult), 1.5, map[string]any{}},
			{int64(mtResult), int64(1), "not details"},
			{int64(mtInvocation), int64(1), int64(2), map[string]any{}, []any{}, map[string]any{}, int64(3)},
			{int64(mtInvocation), int64(1)},
			{int64(mtPublished), int64(1)},
			{int64(mtPublished), int64(1), int64(2), int64(3)},
		} {
			t.Run(fmt.Sprintf("%s/%d", format(json), i), func(t *testing.T) {
				var v any = raw
				b, err := nexusSer(json).SerializeDataItem(v)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := decode(b, json, nil, nil); err == nil {
					t.Fatalf("decode reads %v", raw)
				}
				checkLazy(t, b, json)
			})
		}
	}
}

// FuzzLazy holds the lazy read to decode on arbitrary input.
func FuzzLazy(f *testing.F) {
	for _, json := range []bool{false, true} {
		for _, b := range lazyMessages(f, json) {
			if len(b) < 2048 {
				f.Add(b, json)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, json bool) {
		if nesting(data, json) > 8 {
			return
		}
		checkLazy(t, data, json)
	})
}

// FuzzSkip holds the validating skips to the parsers: a skip fails where
// reading the value fails, and ends where it ends.
func FuzzSkip(f *testing.F) {
	for _, json := range []bool{false, true} {
		for _, v := range codecValues() {
			var b []byte
			var err error
			if json {
				b, err = appendJSON(nil, v, 0)
			} else {
				b, err = appendValue(nil, v, 0)
			}
			if err == nil && len(b) < 2048 {
				f.Add(b, json)
			}
		}
	}
	f.Add([]byte{0x82, 0xa1, 'a', 0x01, 0xc4, 0x01, 'a', 0x02}, false) // a key twice, as a string and as binary
	f.Add([]byte(`{"a":1,"\u0061":2}`), true)                          // a key twice, once escaped
	f.Add([]byte(`{"\ud800":1,"\udc00":2}`), true)                     // two lone surrogates, both U+FFFD
	for _, n := range []string{"1e400", "1e299", "1.8e308", "-17976931348623159e292", "1e-400", "123.5E+0007", "0.5e00300"} {
		f.Add([]byte(n), true) // near a float's range
	}
	f.Add([]byte(strings.Repeat("9", 310)), true)
	f.Fuzz(func(t *testing.T, data []byte, json bool) {
		if json {
			v, s := jsonParser{b: data}, jsonParser{b: data}
			v.value(0)
			s.skip(0)
			if (v.err == nil) != (s.err == nil) || v.err == nil && v.i != s.i {
				t.Fatalf("%q: value: %v at %d, skip: %v at %d", data, v.err, v.i, s.err, s.i)
			}
			return
		}
		v, s := parser{b: data}, parser{b: data}
		v.value(0)
		s.skip(0)
		if v.bad != s.bad || !v.bad && len(v.b) != len(s.b) {
			t.Fatalf("% x: value: bad %v, %d left; skip: bad %v, %d left", data, v.bad, len(v.b), s.bad, len(s.b))
		}
	})
}
