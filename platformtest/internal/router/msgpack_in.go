// This file holds the decoding of the messages a client sends (HELLO,
// AUTHENTICATE, GOODBYE, ERROR, PUBLISH, SUBSCRIBE, UNSUBSCRIBE, CALL,
// CANCEL, REGISTER, UNREGISTER, YIELD) in msgpack. nexus's
// MessagePackSerializer.Deserialize makes a new decoder for every message
// (half a KiB) and fills the message's fields by reflection; here the list
// is read into the values that decoder gives (msgpack_read.go), and the
// fields are filled directly. Any other message, any frame the reader
// leaves alone and any list whose fields are not of the types the fast
// path knows is left to nexus's Deserialize, so that what a link accepts
// and refuses, and how, stays nexus's. msgpackHandle, nexus's options,
// serves the links' encoding (msgpack_list.go) and the tests.

package router

import (
	"reflect"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/ugorji/go/codec"
)

// msgpackHandle has the options of nexus's msgpack handle: maps decode as
// map[string]any (nexus registers no extension).
var msgpackHandle = func() *codec.MsgpackHandle {
	h := new(codec.MsgpackHandle)
	h.WriteExt = true
	h.MapType = reflect.TypeFor[map[string]any]()
	return h
}()

// decodeMsgpack decodes a msgpack frame into the message nexus's
// Deserialize (ser's) would return.
func decodeMsgpack(ser serialize.Serializer, data []byte) (wamp.Message, error) {
	if len(data) < 2 || data[0]&0xf0 != 0x90 { // not a fixarray of a fixint type
		return ser.Deserialize(data)
	}
	typ := wamp.MessageType(data[1])
	if int(typ) >= len(fastTypes) || !fastTypes[typ] {
		return ser.Deserialize(data)
	}
	if v, ok := readMsgpackList(data); ok && len(v) > 0 {
		if m := listMessage(typ, v); m != nil {
			return m, nil
		}
	}
	return ser.Deserialize(data)
}

// fastTypes are the message types listMessage builds, by type.
var fastTypes = [...]bool{
	wamp.HELLO: true, wamp.AUTHENTICATE: true, wamp.GOODBYE: true, wamp.ERROR: true,
	wamp.PUBLISH: true, wamp.SUBSCRIBE: true, wamp.UNSUBSCRIBE: true, wamp.CALL: true,
	wamp.CANCEL: true, wamp.REGISTER: true, wamp.UNREGISTER: true, wamp.YIELD: true,
}

// listMessage builds the message of type typ from its decoded list v as
// nexus does (a missing or nil field is the zero value, fields past the
// message's are ignored); nil when a field's value is not of the type
// nexus assigns or converts directly.
func listMessage(typ wamp.MessageType, v []any) wamp.Message {
	f := fieldList{v: v[1:], ok: true}
	var m wamp.Message
	switch typ {
	case wamp.HELLO:
		m = &wamp.Hello{Realm: f.uri(0), Details: f.dict(1)}
	case wamp.AUTHENTICATE:
		m = &wamp.Authenticate{Signature: f.str(0), Extra: f.dict(1)}
	case wamp.GOODBYE:
		m = &wamp.Goodbye{Details: f.dict(0), Reason: f.uri(1)}
	case wamp.ERROR:
		e := &wamp.Error{Type: wamp.ERROR, Details: wamp.Dict{}, Request: f.id(1), Error: f.uri(3), Arguments: f.list(4), ArgumentsKw: f.dict(5)}
		if f.at(0) != nil { // nexus's ERROR starts as ERROR with empty details
			e.Type = f.msgType(0)
		}
		if f.at(2) != nil {
			e.Details = f.dict(2)
		}
		m = e
	case wamp.PUBLISH:
		m = &wamp.Publish{Request: f.id(0), Options: f.dict(1), Topic: f.uri(2), Arguments: f.list(3), ArgumentsKw: f.dict(4)}
	case wamp.SUBSCRIBE:
		m = &wamp.Subscribe{Request: f.id(0), Options: f.dict(1), Topic: f.uri(2)}
	case wamp.UNSUBSCRIBE:
		m = &wamp.Unsubscribe{Request: f.id(0), Subscription: f.id(1)}
	case wamp.CALL:
		m = &wamp.Call{Request: f.id(0), Options: f.dict(1), Procedure: f.uri(2), Arguments: f.list(3), ArgumentsKw: f.dict(4)}
	case wamp.CANCEL:
		m = &wamp.Cancel{Request: f.id(0), Options: f.dict(1)}
	case wamp.REGISTER:
		m = &wamp.Register{Request: f.id(0), Options: f.dict(1), Procedure: f.uri(2)}
	case wamp.UNREGISTER:
		m = &wamp.Unregister{Request: f.id(0), Registration: f.id(1)}
	case wamp.YIELD:
		m = &wamp.Yield{Request: f.id(0), Options: f.dict(1), Arguments: f.list(2), ArgumentsKw: f.dict(3)}
	}
	if !f.ok {
		return nil
	}
	return m
}

// fieldList reads a message's fields from its decoded list; ok turns false
// at the first value of a type it does not take.
type fieldList struct {
	v  []any
	ok bool
}

// at returns field i, nil when the list is shorter.
func (f *fieldList) at(i int) any {
	if i < len(f.v) {
		return f.v[i]
	}
	return nil
}

// id reads field i as an ID.
func (f *fieldList) id(i int) wamp.ID { return integer[wamp.ID](f, i) }

// msgType reads field i as a message type.
func (f *fieldList) msgType(i int) wamp.MessageType { return integer[wamp.MessageType](f, i) }

// str reads field i as a string.
func (f *fieldList) str(i int) string { return field[string](f, i) }

// dict reads field i as a dictionary.
func (f *fieldList) dict(i int) wamp.Dict { return field[map[string]any](f, i) }

// uri reads field i as a URI.
func (f *fieldList) uri(i int) wamp.URI { return wamp.URI(field[string](f, i)) }

// list reads field i as a list.
func (f *fieldList) list(i int) wamp.List { return field[[]any](f, i) }

// field reads field i of f as a T, the zero T when it is nil or missing;
// a value of another type clears f.ok.
func field[T any](f *fieldList, i int) T {
	var zero T
	switch x := f.at(i).(type) {
	case nil:
	case T:
		return x
	default:
		f.ok = false
	}
	return zero
}

// integer reads field i of f as an integer type, converted from either
// integer the decoder gives (as nexus converts any integer to it); 0 when
// it is nil or missing, and a value of another type clears f.ok.
func integer[T wamp.ID | wamp.MessageType](f *fieldList, i int) T {
	switch x := f.at(i).(type) {
	case nil:
	case uint64:
		return T(x)
	case int64:
		return T(x)
	default:
		f.ok = false
	}
	return 0
}
