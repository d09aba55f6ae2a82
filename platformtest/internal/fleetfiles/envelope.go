// This file holds the envelope every files.* procedure answers with
// (docs/wire.md §7.15): a RESULT whose args[0] is {success: true, payload}
// or {success: false, code, reason}; never a WAMP ERROR. It also reads
// the request payload args[0]. It serves no URI.

package fleetfiles

import (
	"fmt"
	"math"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
)

// failure is a refused call: a file store code and a reason.
type failure struct {
	code   string
	reason string
}

func (f *failure) Error() string { return f.code + ": " + f.reason }

// refuse returns a failure with a formatted reason.
func refuse(code, format string, a ...any) *failure {
	return &failure{code: code, reason: fmt.Sprintf(format, a...)}
}

// succeed is the envelope of a successful call.
func succeed(payload map[string]any) client.InvokeResult {
	return client.InvokeResult{Args: wamp.List{map[string]any{wire.FieldSuccess: true, wire.FieldPayload: payload}}}
}

// result is the envelope of a refused call.
func (f *failure) result() client.InvokeResult {
	return client.InvokeResult{Args: wamp.List{map[string]any{
		wire.FieldSuccess: false, wire.FieldCode: f.code, wire.FieldReason: f.reason,
	}}}
}

// request is the payload of a call, args[0]; empty when there is none.
type request map[string]any

// parseRequest reads args[0]: a mapping, or nothing.
func parseRequest(inv *wamp.Invocation) (request, *failure) {
	if len(inv.Arguments) == 0 || inv.Arguments[0] == nil {
		return request{}, nil
	}
	m, ok := wirevalue.Normalize(wirevalue.Clone(inv.Arguments[0]), false).(map[string]any)
	if !ok {
		return nil, refuse(wire.FileInternal, "the payload must be an object, got %T", inv.Arguments[0])
	}
	return m, nil
}

// has reports whether field is present and not null.
func (r request) has(field string) bool { return r[field] != nil }

// str reads a string field; def when absent or null.
func (r request) str(field, def string) (string, *failure) {
	v := r[field]
	if v == nil {
		return def, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", refuse(wire.FileInternal, "%s must be a string, got %T", field, v)
	}
	return s, nil
}

// int reads an integer field (a whole float is accepted, as JavaScript
// sends them); def when absent or null.
func (r request) int(field string, def int64) (int64, *failure) {
	switch v := r[field].(type) {
	case nil:
		return def, nil
	case int64:
		return v, nil
	case uint64:
		return math.MaxInt64, nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v), nil
		}
		return 0, refuse(wire.FileInternal, "%s must be an integer, got %v", field, v)
	default:
		return 0, refuse(wire.FileInternal, "%s must be an integer, got %T", field, v)
	}
}

// bool reads a boolean field; false when absent or null.
func (r request) bool(field string) (bool, *failure) {
	switch v := r[field].(type) {
	case nil:
		return false, nil
	case bool:
		return v, nil
	default:
		return false, refuse(wire.FileInternal, "%s must be a boolean, got %T", field, v)
	}
}

// namespace reads the namespace field: "default" when absent or "".
func (r request) namespace(field string) (string, *failure) {
	ns, f := r.str(field, "")
	if ns == "" && f == nil {
		ns = wire.DefaultFileNamespace
	}
	return ns, f
}
