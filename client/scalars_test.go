// This file tests the scalar hooks of generated code: each agrees with
// Decode (and EncodeTime with the encoder) on every value, errors
// included.

package client_test

import (
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
)

// scalarInputs are values as rows carry them, and a few they never do.
var scalarInputs = []any{
	nil, true, false, int64(0), int64(-3), int64(1767225600000), uint64(math.MaxUint64), 2.0, 2.5, -0.5,
	math.Inf(1), math.NaN(), 1e300, "", "text", "2026-01-01T00:00:00Z", "2026-01-01", "2026-01-01 10:00:00",
	"not a time", []byte("bin"), map[string]any{"a": int64(1)}, []any{int64(1)},
}

// sameAs checks hook against Decode[T] on every input.
func sameAs[T comparable](t *testing.T, name string, hook func(any, string) (T, error)) {
	t.Helper()
	for _, in := range scalarInputs {
		want, wantErr := client.Decode[T](in)
		got, err := hook(in, "value")
		if (err == nil) != (wantErr == nil) {
			t.Errorf("%s(%#v): error %v, Decode: %v", name, in, err, wantErr)
			continue
		}
		if err != nil {
			if err.Error() != wantErr.Error() {
				t.Errorf("%s(%#v): error %q, Decode: %q", name, in, err, wantErr)
			}
			continue
		}
		if got != want && !(got != got && want != want) { // NaN equals NaN here
			t.Errorf("%s(%#v) = %v, Decode: %v", name, in, got, want)
		}
	}
}

func TestScalarHooksAgreeWithDecode(t *testing.T) {
	sameAs(t, "DecodeFloat64", client.DecodeFloat64)
	sameAs(t, "DecodeInt64", client.DecodeInt64)
	sameAs(t, "DecodeBool", client.DecodeBool)
	sameAs(t, "DecodeString", client.DecodeString)
	sameAs(t, "DecodeTime", client.DecodeTime)
}

func TestEncodeTime(t *testing.T) {
	at := time.Date(2026, 10, 8, 14, 0, 0, 123000000, time.FixedZone("CEST", 2*3600))
	got, err := client.EncodeTime(at, "tsp")
	if err != nil || got != "2026-10-08T12:00:00.123Z" {
		t.Errorf("EncodeTime = %q, %v", got, err)
	}
	wire, err := client.Encode(at)
	if err != nil || wire != got {
		t.Errorf("Encode = %v, %v; EncodeTime = %q", wire, err, got)
	}
	_, err = client.EncodeTime(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "tsp")
	if !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("year 10000: %v, want ErrInvalidArgument", err)
	}
}

// Generated code reads a row column by column with these hooks.
func ExampleDecodeTime() {
	row := client.Row{"tsp": int64(1767225600000), "temperature": int64(22)}
	at, _ := client.DecodeTime(row["tsp"], "tsp")
	temp, _ := client.DecodeFloat64(row["temperature"], "temperature")
	_, err := client.DecodeInt64("22", "count")
	fmt.Println(at, temp)
	fmt.Println(err)
	// Output:
	// 2026-01-01 00:00:00 +0000 UTC 22
	// decode count: cannot use string "22" as int64
}
