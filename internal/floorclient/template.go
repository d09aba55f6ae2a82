// This file holds pre-encoded messages (Template) in msgpack or JSON, and
// writing their request ID before each send.

package floorclient

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gorilla/websocket"
)

// Message type codes of WAMP that the floor client sends or reads.
const (
	codeWelcome    = 2
	codeAbort      = 3
	codeChallenge  = 4
	codeGoodbye    = 6
	codeError      = 8
	codePublish    = 16
	codePublished  = 17
	codeCall       = 48
	codeResult     = 50
	codeRegister   = 64
	codeRegistered = 65
	codeInvocation = 68
	codeYield      = 70
)

// Format is the serialization of a Conn and of the Templates it sends.
type Format int

// The formats: wamp.2.msgpack and wamp.2.json.
const (
	MsgPack Format = iota
	JSON
)

// subprotocol is f's WebSocket subprotocol.
func (f Format) subprotocol() string {
	if f == JSON {
		return "wamp.2.json"
	}
	return "wamp.2.msgpack"
}

// serializer is nexus's serializer of f, used for templates and the join.
func (f Format) serializer() serialize.Serializer {
	if f == JSON {
		return &serialize.JSONSerializer{}
	}
	return &serialize.MessagePackSerializer{}
}

// idOffset is where the 8 bytes of the request ID start in a msgpack
// Template: after the array header (1 byte), the message type (1 byte) and
// the msgpack uint64 marker 0xcf.
const idOffset = 3

// Template is a pre-encoded message (acknowledged PUBLISH, CALL or YIELD)
// whose request ID is written before each send: in msgpack in place, as a
// fixed-width uint64; in JSON between the text before and after it. A
// Template is not safe for concurrent use: each sender writes its ID and
// sends it.
type Template struct {
	buf        []byte
	head, tail []byte // JSON: the text around the ID
	json       bool
	reply      byte // message type code of the success reply (none for YIELD)
}

// PublishTemplate pre-encodes an acknowledged PUBLISH of args and kwargs
// to topic, as msgpack.
func PublishTemplate(topic string, args []any, kwargs map[string]any) (*Template, error) {
	msg := &wamp.Publish{Options: wamp.Dict{"acknowledge": true}, Topic: wamp.URI(topic), Arguments: args, ArgumentsKw: kwargs}
	return newTemplate(MsgPack, msg, codePublish, codePublished)
}

// CallTemplate pre-encodes a CALL of procedure with args and kwargs and no
// options, as msgpack.
func CallTemplate(procedure string, args []any, kwargs map[string]any) (*Template, error) {
	return CallTemplateOf(MsgPack, procedure, args, kwargs)
}

// CallTemplateOf pre-encodes a CALL of procedure with args and kwargs and
// no options, in format f.
func CallTemplateOf(f Format, procedure string, args []any, kwargs map[string]any) (*Template, error) {
	msg := &wamp.Call{Options: wamp.Dict{}, Procedure: wamp.URI(procedure), Arguments: args, ArgumentsKw: kwargs}
	return newTemplate(f, msg, codeCall, codeResult)
}

// YieldTemplate pre-encodes a YIELD of args and kwargs with no options, in
// format f: the answer a callee (Conn.Serve) sends to every invocation.
func YieldTemplate(f Format, args []any, kwargs map[string]any) (*Template, error) {
	msg := &wamp.Yield{Options: wamp.Dict{}, Arguments: args, ArgumentsKw: kwargs}
	return newTemplate(f, msg, codeYield, 0)
}

// newTemplate encodes msg with request ID 0 and prepares the ID's place:
// in msgpack it widens the ID to a fixed-width uint64, so that any ID can
// be written in place; in JSON it splits the text around the ID.
func newTemplate(f Format, msg wamp.Message, code, reply byte) (*Template, error) {
	b, err := f.serializer().Serialize(msg)
	if err != nil {
		return nil, err
	}
	if f == JSON {
		head := "[" + strconv.Itoa(int(code)) + ",0,"
		if !strings.HasPrefix(string(b), head) {
			return nil, fmt.Errorf("floorclient: unexpected encoding of %T: %.20s", msg, b)
		}
		h := len(head) - 2
		return &Template{head: b[:h], tail: b[h+1:], json: true, reply: reply,
			buf: make([]byte, 0, len(b)+20)}, nil
	}
	// A fixarray of at most 15 elements, the type as a positive fixint and
	// the ID 0 as a positive fixint.
	if len(b) < 3 || b[0]&0xf0 != 0x90 || b[1] != code || b[2] != 0 {
		return nil, fmt.Errorf("floorclient: unexpected encoding of %T: % x", msg, b[:min(len(b), 8)])
	}
	buf := make([]byte, 0, len(b)+8)
	buf = append(buf, b[0], b[1], 0xcf, 0, 0, 0, 0, 0, 0, 0, 0)
	buf = append(buf, b[3:]...)
	return &Template{buf: buf, reply: reply}, nil
}

// withID writes id into the template and returns the message to send
// (the template's own buffer: valid until the next withID).
func (t *Template) withID(id uint64) []byte {
	if t.json {
		t.buf = append(strconv.AppendUint(append(t.buf[:0], t.head...), id, 10), t.tail...)
		return t.buf
	}
	binary.BigEndian.PutUint64(t.buf[idOffset:], id)
	return t.buf
}

// setID writes id into the template.
func (t *Template) setID(id uint64) { t.withID(id) }

// Bytes returns the encoded message with the request ID last written (the
// template's own buffer: do not modify it).
func (t *Template) Bytes() []byte {
	if t.json && len(t.buf) == 0 {
		return t.withID(0)
	}
	return t.buf
}

// Len is the size of the encoded message in bytes (in JSON, with ID 0).
func (t *Template) Len() int {
	if t.json {
		return len(t.head) + 1 + len(t.tail)
	}
	return len(t.buf)
}

// frame is the WebSocket frame type of the template's messages.
func (t *Template) frame() int {
	if t.json {
		return websocket.TextMessage
	}
	return websocket.BinaryMessage
}
