package router

import (
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
)

// TestNormalizeJSONInbound checks the binary convention and the integer
// forms of a JSON link's payload, nested named containers included.
func TestNormalizeJSONInbound(t *testing.T) {
	m := &wamp.Publish{Arguments: wamp.List{"\x00AQI=", uint64(3)}, ArgumentsKw: wamp.Dict{"d": wamp.Dict{"l": wamp.List{uint64(1)}}}}
	normalizeJSONInbound(m)
	if diff := cmp.Diff(wamp.List{[]byte{1, 2}, int64(3)}, m.Arguments); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wamp.Dict{"d": map[string]any{"l": []any{int64(1)}}}, m.ArgumentsKw); diff != "" {
		t.Errorf("kwargs (-want +got):\n%s", diff)
	}
}
