// This file holds pre-encoded messages (Template) and patching their
// request ID in place.

package floorclient

import (
	"encoding/binary"
	"fmt"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
)

// Message type codes of WAMP that the floor client sends or reads.
const (
	codeWelcome   = 2
	codeAbort     = 3
	codeChallenge = 4
	codeGoodbye   = 6
	codeError     = 8
	codePublish   = 16
	codePublished = 17
	codeCall      = 48
	codeResult    = 50
)

// idOffset is where the 8 bytes of the request ID start in a Template:
// after the array header (1 byte), the message type (1 byte) and the
// msgpack uint64 marker 0xcf.
const idOffset = 3

// Template is a pre-encoded request (acknowledged PUBLISH or CALL) whose
// request ID is written in place before each send. A Template is not safe
// for concurrent use: each sender patches it and writes it.
type Template struct {
	buf   []byte
	reply byte // message type code of the success reply
}

// PublishTemplate pre-encodes an acknowledged PUBLISH of args and kwargs
// to topic, as msgpack.
func PublishTemplate(topic string, args []any, kwargs map[string]any) (*Template, error) {
	msg := &wamp.Publish{Options: wamp.Dict{"acknowledge": true}, Topic: wamp.URI(topic), Arguments: args, ArgumentsKw: kwargs}
	return newTemplate(msg, codePublish, codePublished)
}

// CallTemplate pre-encodes a CALL of procedure with args and kwargs and no
// options, as msgpack.
func CallTemplate(procedure string, args []any, kwargs map[string]any) (*Template, error) {
	msg := &wamp.Call{Options: wamp.Dict{}, Procedure: wamp.URI(procedure), Arguments: args, ArgumentsKw: kwargs}
	return newTemplate(msg, codeCall, codeResult)
}

// newTemplate encodes msg with request ID 0 and widens the ID to a
// fixed-width uint64, so that any ID can be written in place.
func newTemplate(msg wamp.Message, code, reply byte) (*Template, error) {
	b, err := (&serialize.MessagePackSerializer{}).Serialize(msg)
	if err != nil {
		return nil, err
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

// setID writes id into the template.
func (t *Template) setID(id uint64) { binary.BigEndian.PutUint64(t.buf[idOffset:], id) }

// Bytes returns the encoded message with the request ID last written (the
// template's own buffer: do not modify it).
func (t *Template) Bytes() []byte { return t.buf }

// Len is the size of the encoded message in bytes.
func (t *Template) Len() int { return len(t.buf) }
