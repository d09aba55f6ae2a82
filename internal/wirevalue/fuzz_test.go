package wirevalue

import (
	"encoding/json"
	"testing"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/internal/nexuspayload"
)

// FuzzPayload feeds msgpack and JSON frames through the serializers the
// platform uses and checks the walks of this package on whatever payload
// comes out: Clone equals Normalize and shares nothing with its source,
// and ForJSON always yields something encoding/json can write.
func FuzzPayload(f *testing.F) {
	mp := &serialize.MessagePackSerializer{}
	js := &serialize.JSONSerializer{}
	for _, m := range []wamp.Message{
		&wamp.Publish{Request: 1, Options: wamp.Dict{}, Topic: "t", Arguments: wamp.List{map[string]any{"a": 1.5, "b": []byte{1}}}, ArgumentsKw: wamp.Dict{"k": wamp.List{"x", nil, true}}},
		&wamp.Call{Request: 2, Options: wamp.Dict{}, Procedure: "p", Arguments: wamp.List{uint64(1 << 63), -3, "\x00AQI="}},
	} {
		b, err := mp.Serialize(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		if b, err = js.Serialize(m); err != nil {
			f.Fatal(err)
		}
		f.Add(b, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		var s serialize.Serializer = mp
		if asJSON {
			s = js
		}
		msg, err := s.Deserialize(data)
		if err != nil {
			return
		}
		args, kwargs, ok := nexuspayload.Of(msg)
		if !ok {
			return
		}
		for _, v := range []any{*args, *kwargs} {
			if v == nil {
				continue
			}
			c := Clone(v)
			// Normalize converts in place, so it runs after Clone.
			if !cmp.Equal(Normalize(v, false), c, cmpopts.EquateNaNs()) {
				t.Fatalf("Clone differs from Normalize: %#v", v)
			}
			if !cmp.Equal(Clone(c), c, cmpopts.EquateNaNs()) {
				t.Fatalf("Clone is not stable: %#v", c)
			}
			if _, err := json.Marshal(ForJSON(c)); err != nil {
				t.Fatalf("ForJSON(%#v) cannot be written as JSON: %v", c, err)
			}
		}
	})
}
