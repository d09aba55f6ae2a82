// This file holds the scalar appenders that pick the wire form: the
// message writer and the Encoder both write through them.

package engine

import "github.com/flockgo/ironflock/internal/msgpackform"

// appendIntAs appends i in JSON or msgpack.
func appendIntAs(b []byte, json bool, i int64) []byte {
	if json {
		return appendJSONInt(b, i)
	}
	return msgpackform.AppendInt(b, i)
}

// appendUintAs appends u in JSON or msgpack.
func appendUintAs(b []byte, json bool, u uint64) []byte {
	if json {
		return appendJSONUint(b, u)
	}
	return msgpackform.AppendUint(b, u)
}

// appendStringAs appends s in JSON or msgpack.
func appendStringAs(b []byte, json bool, s string) []byte {
	if json {
		return appendJSONString(b, s)
	}
	return msgpackform.AppendString(b, s)
}
