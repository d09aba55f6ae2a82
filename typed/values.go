// This file holds the conversion of a value as rows carry it into the Go
// type of a typed column or metric, without reflection.

package typed

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
)

// decodeAs converts v into V (float64, int64, string, bool, time.Time or
// json.RawMessage) with the rules of client.Decode; name labels it in the
// error.
func decodeAs[V any](v any, name string) (V, error) {
	var out V
	var err error
	switch p := any(&out).(type) {
	case *float64:
		*p, err = client.DecodeFloat64(v, name)
	case *int64:
		*p, err = client.DecodeInt64(v, name)
	case *string:
		*p, err = client.DecodeString(v, name)
	case *bool:
		*p, err = client.DecodeBool(v, name)
	case *time.Time:
		*p, err = client.DecodeTime(v, name)
	case *json.RawMessage:
		*p, err = DecodeJSON(v, name)
	default:
		err = client.DecodeInto(v, &out)
	}
	return out, err
}

// valueOf returns the value of key in row as V; ok is false when it is
// absent, NULL or not a V.
func valueOf[V any](row client.Row, key string) (V, bool) {
	x, ok := row[key]
	if !ok || x == nil {
		var zero V
		return zero, false
	}
	v, err := decodeAs[V](x, key)
	return v, err == nil
}

// DecodeJSON returns the JSON text of a json column's value as rows carry
// it (objects, lists, numbers, …); null is nil. name labels the value in
// the error. It is what client.Decode does for a json.RawMessage.
func DecodeJSON(v any, name string) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", name, err)
	}
	return b, nil
}

// EncodeJSON returns the wire form of a json column's value: the JSON
// text decoded, integral numbers as integers, as the client sends a
// json.RawMessage. Empty text is null.
func EncodeJSON(raw json.RawMessage, name string) (any, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	v, err := client.Encode(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return v, nil
}

// EncodeTsp returns the wire form of a row's tsp: client.EncodeTime, and
// the zero time refused (client.ErrInvalidArgument), since every row
// needs a tsp and the zero time.Time is one left unset.
func EncodeTsp(t time.Time) (string, error) {
	if t.IsZero() {
		return "", invalidArg("tsp is the zero time; every row needs one (time.Now(), or the time of the reading)")
	}
	return client.EncodeTime(t, "tsp")
}
