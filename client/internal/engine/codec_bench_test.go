package engine

import (
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
)

// payloadOf returns the payload of a RESULT or INVOCATION read lazily.
func payloadOf(m message) rawPayload {
	switch x := m.(type) {
	case *resultMsg:
		return x.raw
	case *invocationMsg:
		return x.raw
	}
	return rawPayload{}
}

// benchMeta is the device metadata of benchRow's publications.
var benchMeta = map[string]any{"DEVICE_SERIAL_NUMBER": "0c3e5a1b-serial", "DEVICE_KEY": "12", "DEVICE_NAME": "a"}

// BenchmarkCodec measures the codec alone on the messages of the hot path
// with the benchmarks' row, in both formats: encoding PUBLISH, CALL and
// YIELD into the link's reused buffer (with the making of the message, as
// the session makes it), and decoding PUBLISHED, RESULT, EVENT and
// INVOCATION (written by nexus) through the link's key cache: RESULT and
// INVOCATION read lazily, their payload then decoded (as dispatch does for
// a taker of the wire form) or checked (for one that reads it itself).
func BenchmarkCodec(b *testing.B) {
	for _, json := range []bool{false, true} {
		out := map[string]func() message{
			"publish": func() message {
				return &publishMsg{Request: 123456, Options: ackOptions, Topic: benchTopic, Args: []any{benchRow}, Kwargs: benchMeta}
			},
			"call": func() message {
				return &callMsg{Request: 123456, Options: noOptions, Procedure: "1.2.1.DEV.echo", Args: []any{benchRow}}
			},
			"yield": func() message {
				return &yieldMsg{Request: 123456, Options: noOptions, Args: []any{benchRow}}
			},
		}
		for _, k := range []string{"publish", "call", "yield"} {
			b.Run(format(json)+"/encode/"+k, func(b *testing.B) {
				l := &link{json: json, joined: true}
				mk := out[k]
				b.ReportAllocs()
				for b.Loop() {
					buf, err := encode(l.wbuf[:0], l.json, mk())
					if err != nil {
						b.Fatal(err)
					}
					l.wbuf = buf
				}
			})
		}
		in := map[string]wamp.Message{
			"published":  &wamp.Published{Request: 123456, Publication: 4503599627370495},
			"result":     &wamp.Result{Request: 123456, Details: wamp.Dict{}, Arguments: wamp.List{benchRow}},
			"event":      &wamp.Event{Subscription: 77, Publication: 4503599627370495, Details: wamp.Dict{"publisher_authid": "a"}, Arguments: wamp.List{benchRow}, ArgumentsKw: benchMeta},
			"invocation": &wamp.Invocation{Request: 99, Registration: 88, Details: wamp.Dict{"caller": int64(5), "caller_authid": "b"}, Arguments: wamp.List{benchRow}},
		}
		for _, k := range []string{"published", "result", "event", "invocation"} {
			b.Run(format(json)+"/decode/"+k, func(b *testing.B) {
				l := &link{json: json, joined: true}
				raw, err := nexusSer(json).Serialize(in[k])
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				for b.Loop() {
					m, err := l.decode(raw)
					if err != nil {
						b.Fatal(err)
					}
					if p := payloadOf(m); p.lazy {
						if _, _, err := p.decode(l.keyCache(), &l.jstack); err != nil {
							b.Fatal(err)
						}
					}
				}
			})
			if k != "result" && k != "invocation" {
				continue
			}
			b.Run(format(json)+"/check/"+k, func(b *testing.B) {
				l := &link{json: json, joined: true}
				raw, err := nexusSer(json).Serialize(in[k])
				if err != nil {
					b.Fatal(err)
				}
				var buf []byte
				b.ReportAllocs()
				for b.Loop() {
					m, err := l.decode(raw)
					if err != nil {
						b.Fatal(err)
					}
					p := payloadOf(m)
					if err := p.check(); err != nil {
						b.Fatal(err)
					}
					buf = p.copyTo(buf).b
				}
			})
		}
	}
}
