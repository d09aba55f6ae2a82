// This file tests the paths that skip the wire form: Into (a result
// decoded straight from its message) and LazyArgs (arguments decoded the
// same way) against Decode, and a handler's struct result written straight
// into its YIELD against Encode, in msgpack and JSON.

package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/client"
)

type typedInner struct {
	A int     `json:"a"`
	B *string `json:"b,omitempty"`
}

// typedLevel has its own decoding and encoding.
type typedLevel int

func (l typedLevel) MarshalText() ([]byte, error) { return []byte(strings.Repeat("*", int(l))), nil }

func (l *typedLevel) UnmarshalText(b []byte) error {
	if strings.Trim(string(b), "*") != "" {
		return errors.New("not a level")
	}
	*l = typedLevel(len(b))
	return nil
}

type TypedEmbedded struct {
	E string `json:"e"`
}

// typedRow has a field of every kind the direct paths read and write
// themselves, and of the kinds they leave to the wire form.
type typedRow struct {
	F    float64           `json:"f"`
	F32  float32           `json:"f32"`
	I    int8              `json:"i"`
	U    uint16            `json:"u"`
	Big  uint64            `json:"big"`
	S    string            `json:"s"`
	OK   bool              `json:"ok"`
	T    time.Time         `json:"t"`
	TP   *time.Time        `json:"tp"`
	P    *typedInner       `json:"p"`
	In   typedInner        `json:"in"`
	M    map[string]int    `json:"m"`
	L    []int             `json:"l"`
	Any  any               `json:"any"`
	Q    int               `json:"q,string"`
	Lvl  typedLevel        `json:"lvl"`
	Raw  json.RawMessage   `json:"raw"`
	Bin  []byte            `json:"bin"`
	Omit string            `json:"omit,omitempty"`
	Zero time.Time         `json:"zero,omitzero"`
	Kw   map[string]string `json:"kw,omitempty"`
	TypedEmbedded
}

// typedPair is a callee serving "echo" (its first argument back, or its
// keyword arguments) and "lazy" (LazyArgs: its arguments decoded into a
// typedRow, answered as decoded, or the error), and a caller, with ser.
func typedPair(t *testing.T, ser client.Serializer) (caller *client.Client, calleeKey int) {
	t.Helper()
	f := newFleet(t)
	callee := connect(t, f.a, client.WithSerializer(ser))
	ctx := ctxT(t)
	if _, err := callee.RegisterDeviceFunction(ctx, "echo", func(_ context.Context, inv *client.Invocation) (any, error) {
		if len(inv.Args) > 0 {
			return inv.Args[0], nil
		}
		return client.Kwargs(inv.Kwargs), nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := callee.RegisterDeviceFunction(ctx, "lazy", func(_ context.Context, inv *client.Invocation) (any, error) {
		if inv.Args != nil || inv.Kwargs != nil {
			return nil, errors.New("LazyArgs: Args or Kwargs set")
		}
		var r typedRow
		if err := inv.Decode(&r); err != nil {
			return nil, err
		}
		return &r, nil
	}, client.LazyArgs()); err != nil {
		t.Fatal(err)
	}
	return connect(t, f.b, client.WithSerializer(ser)), f.a.Device().Key()
}

func typedSerializers() []client.Serializer { return []client.Serializer{client.MsgPack, client.JSON} }

// typedCases are arguments (a row in wire form, mostly) for typedRow.
func typedCases() []any {
	full := map[string]any{"f": 21.5, "f32": 0.1, "i": int64(-7), "u": int64(60000), "big": uint64(math.MaxUint64), "s": "héllo",
		"ok": true, "t": "2026-11-26T10:00:00.5Z", "tp": int64(1764151200000), "p": map[string]any{"a": int64(1), "b": "x"},
		"in": map[string]any{"A": int64(2)}, "m": map[string]any{"x": int64(3)}, "l": []any{int64(1), int64(2)}, "any": []any{"y", 1.5},
		"q": "42", "lvl": "***", "raw": map[string]any{"k": []any{true}}, "bin": []byte{1, 2, 3}, "e": "embedded", "unknown": "skipped",
		"kw": map[string]any{"a": "b"}}
	cases := []any{full, map[string]any{}, nil, map[string]any{"p": nil, "tp": nil, "s": nil},
		map[string]any{"F": 1.0, "S": "case-insensitive"}, map[string]any{"f": int64(3), "i": 5.0, "u": 7.0, "f32": int64(1)}}
	// Refusals: a value of the wrong kind, one that does not fit.
	for k, v := range map[string]any{"i": int64(300), "u": int64(-1), "f": "x", "s": int64(1), "ok": "yes", "p": "x",
		"t": "not a time", "lvl": "x", "q": "z", "l": "x", "in": []any{}, "f32": 1e300, "big": 1.5} {
		cases = append(cases, map[string]any{k: v})
	}
	return append(cases, "not a row", []any{1})
}

// TestIntoDecodesAsDecode calls "echo" with each case and decodes the
// result into a typedRow with Into and with Result.Decode: both fail, or
// both give the same row.
func TestIntoDecodesAsDecode(t *testing.T) {
	for _, ser := range typedSerializers() {
		t.Run(ser.String(), func(t *testing.T) {
			caller, key := typedPair(t, ser)
			ctx := ctxT(t)
			for _, c := range typedCases() {
				res, err := caller.CallDeviceFunction(ctx, key, "echo", c)
				if err != nil {
					t.Fatalf("%#v: %v", c, err)
				}
				var want typedRow
				werr := res.Decode(&want)
				var got typedRow
				into, gerr := caller.CallDeviceFunction(ctx, key, "echo", c, client.Into(&got))
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("%#v: Decode says %v, Into %v", c, werr, gerr)
				}
				if werr != nil {
					continue
				}
				if into == nil || into.Args != nil || into.Kwargs != nil {
					t.Errorf("%#v: Into's Result = %#v, want one without arguments", c, into)
				}
				if diff := cmp.Diff(want, got, cmpopts.EquateNaNs()); diff != "" {
					t.Errorf("%#v (-Decode +Into):\n%s", c, diff)
				}
			}
			// Keyword results, when there is no positional one.
			var kw typedRow
			if _, err := caller.CallDeviceFunction(ctx, key, "echo", client.Kwargs{"s": "kw", "i": 3}, client.Into(&kw)); err != nil || kw.S != "kw" || kw.I != 3 {
				t.Errorf("keyword result: %+v, %v", kw, err)
			}
		})
	}
}

// TestIntoRefuses checks Into's own arguments and errors.
func TestIntoRefuses(t *testing.T) {
	caller, key := typedPair(t, client.MsgPack)
	ctx := ctxT(t)
	var none *typedRow
	if _, err := caller.CallDeviceFunction(ctx, key, "echo", 1, client.Into(none)); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("Into(nil): err = %v, want ErrInvalidArgument", err)
	}
	var r typedRow
	_, err := caller.CallDeviceFunction(ctx, key, "echo", map[string]any{"in": map[string]any{"a": "x"}}, client.Into(&r))
	if err == nil || !strings.Contains(err.Error(), "value.in.a") || !strings.Contains(err.Error(), `"x"`) {
		t.Errorf("err = %v, want the decoding error naming value.in.a", err)
	}
	var opErr *client.OpError
	if !errors.As(err, &opErr) || opErr.Op != "CallDeviceFunction" {
		t.Errorf("err = %#v, want an OpError of CallDeviceFunction", err)
	}
	// A refusal stays the router's or callee's, not a decoding error.
	_, err = caller.CallDeviceFunction(ctx, key, "missing", 1, client.Into(&r))
	if client.WampURI(err) != "wamp.error.no_such_procedure" {
		t.Errorf("missing procedure: err = %v", err)
	}
}

// TestLazyArgsAndStructResults calls "lazy" with each case: its LazyArgs
// handler decodes the arguments straight from the message and answers with
// the row, written straight into the YIELD. The answer is what Decode of
// the arguments, then Encode of the row, give.
func TestLazyArgsAndStructResults(t *testing.T) {
	for _, ser := range typedSerializers() {
		t.Run(ser.String(), func(t *testing.T) {
			caller, key := typedPair(t, ser)
			ctx := ctxT(t)
			for _, c := range typedCases() {
				echoed, err := caller.CallDeviceFunction(ctx, key, "echo", c)
				if err != nil {
					t.Fatal(err)
				}
				var row typedRow
				derr := echoed.Decode(&row)
				res, err := caller.CallDeviceFunction(ctx, key, "lazy", c)
				if derr != nil {
					if client.WampURI(err) != "wamp.error.runtime_error" {
						t.Errorf("%#v: Decode fails (%v), the LazyArgs handler answers %v", c, derr, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%#v: %v", c, err)
				}
				wire, err := client.Encode(row)
				if err != nil {
					t.Fatal(err)
				}
				// What the router hands on of the wire form: the result of
				// "echo" sending it.
				want, err := caller.CallDeviceFunction(ctx, key, "echo", wire)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want.Args, res.Args, cmpopts.EquateNaNs()); diff != "" {
					t.Errorf("%#v (-Encode +written straight):\n%s", c, diff)
				}
			}
		})
	}
}

// TestLazyArgsDecodeAfterReturn checks that a LazyArgs invocation kept
// beyond its handler refuses to decode, rather than read a buffer reused
// since.
func TestLazyArgsDecodeAfterReturn(t *testing.T) {
	f := newFleet(t)
	callee := connect(t, f.a)
	ctx := ctxT(t)
	kept := make(chan *client.Invocation, 1)
	if _, err := callee.RegisterDeviceFunction(ctx, "keep", func(_ context.Context, inv *client.Invocation) (any, error) {
		kept <- inv
		return nil, nil
	}, client.LazyArgs()); err != nil {
		t.Fatal(err)
	}
	caller := connect(t, f.b)
	if _, err := caller.CallDeviceFunction(ctx, f.a.Device().Key(), "keep", 1); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := (<-kept).Decode(&n); !errors.Is(err, client.ErrInvalidArgument) || !strings.Contains(err.Error(), "while the handler runs") {
		t.Errorf("Decode after the handler returned: %v", err)
	}
}
