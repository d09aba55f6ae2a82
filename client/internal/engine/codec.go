// This file holds the engine's codec for every message it sends and
// receives, in msgpack (wamp.2.msgpack) and JSON (wamp.2.json): the
// layout of each message type, written by encode and read by decode. The
// values inside are written and read by msgpack.go and json.go.
//
// What is written is what nexus's serializer writes for the same message
// (in msgpack, the same bytes; in JSON, text nexus reads back the same),
// and what is read is what nexus's serializer, with the SDK's value
// normalisation, makes of the same bytes; the tests hold the codec to
// both. Where nexus is lenient about a malformed message (a float where an
// id belongs, elements missing or in excess), decode is strict and fails.

package engine

import (
	"errors"
	"fmt"

	"github.com/flockgo/ironflock/internal/msgpackform"
	"github.com/flockgo/ironflock/internal/wire"
)

// errDepth reports values nested deeper than maxDepth.
var errDepth = fmt.Errorf("values nested more than %d deep", maxDepth)

// maxDepth bounds the nesting of values the codec writes and reads.
const maxDepth = 64

// unsupported reports a value of a type outside the wire form.
func unsupported(v any) error { return fmt.Errorf("a value of type %T is outside the wire form", v) }

// encode appends msg in msgpack, or JSON when json is set, to b.
func encode(b []byte, json bool, msg message) ([]byte, error) {
	w := writer{b: b, json: json}
	switch m := msg.(type) {
	case *publishMsg:
		n := wire.PayloadElems(m.Args, m.Kwargs)
		w.begin(mtPublish, 4+n)
		w.id(m.Request)
		w.dict(m.Options)
		w.str(m.Topic)
		w.payload(n, m.Args, m.Kwargs)
	case *callMsg:
		n := wire.PayloadElems(m.Args, m.Kwargs)
		w.begin(mtCall, 4+n)
		w.id(m.Request)
		w.dict(m.Options)
		w.str(m.Procedure)
		w.payload(n, m.Args, m.Kwargs)
	case *yieldMsg:
		n := wire.PayloadElems(m.Args, m.Kwargs)
		w.begin(mtYield, 3+n)
		w.id(m.Request)
		w.dict(m.Options)
		w.payload(n, m.Args, m.Kwargs)
	case *errorMsg:
		n := wire.PayloadElems(m.Args, m.Kwargs)
		w.begin(mtError, 5+n)
		w.int(int64(m.Type))
		w.id(m.Request)
		w.dict(m.Details)
		w.str(m.Error)
		w.payload(n, m.Args, m.Kwargs)
	case *helloMsg:
		w.begin(mtHello, 3)
		w.str(m.Realm)
		w.dict(m.Details)
	case *authenticateMsg:
		w.begin(mtAuthenticate, 3)
		w.str(m.Signature)
		w.dict(m.Extra)
	case *goodbyeMsg:
		w.begin(mtGoodbye, 3)
		w.dict(m.Details)
		w.str(m.Reason)
	case *subscribeMsg:
		w.begin(mtSubscribe, 4)
		w.id(m.Request)
		w.dict(m.Options)
		w.str(m.Topic)
	case *unsubscribeMsg:
		w.begin(mtUnsubscribe, 3)
		w.id(m.Request)
		w.id(m.Subscription)
	case *registerMsg:
		w.begin(mtRegister, 4)
		w.id(m.Request)
		w.dict(m.Options)
		w.str(m.Procedure)
	case *unregisterMsg:
		w.begin(mtUnregister, 3)
		w.id(m.Request)
		w.id(m.Registration)
	case *cancelMsg:
		w.begin(mtCancel, 3)
		w.id(m.Request)
		w.dict(m.Options)
	default:
		return b, fmt.Errorf("encode %s: not a message the client sends", msg.kind())
	}
	if w.err != nil {
		return w.b, fmt.Errorf("encode %s: %w", msg.kind(), w.err)
	}
	if json {
		w.b = append(w.b, ']')
	}
	return w.b, nil
}

// writer appends the elements of one message, in msgpack or JSON; the
// first value outside the wire form stops it.
type writer struct {
	b    []byte
	json bool
	err  error
}

// begin opens the message: a list of n elements, its type first.
func (w *writer) begin(t msgType, n int) {
	if w.json {
		w.b = append(w.b, '[')
		w.b = appendJSONInt(w.b, int64(t))
		return
	}
	w.b = msgpackform.AppendArrayHeader(w.b, n)
	w.b = msgpackform.AppendInt(w.b, int64(t))
}

// sep separates an element from the one before (the type at least).
func (w *writer) sep() {
	if w.json {
		w.b = append(w.b, ',')
	}
}

func (w *writer) int(i int64) {
	w.sep()
	w.b = appendIntAs(w.b, w.json, i)
}

func (w *writer) id(id uint64) {
	w.sep()
	w.b = appendUintAs(w.b, w.json, id)
}

func (w *writer) str(s string) {
	w.sep()
	w.b = appendStringAs(w.b, w.json, s)
}

// dict writes a dictionary element; nil is written as nil.
func (w *writer) dict(d map[string]any) {
	if w.err != nil {
		return
	}
	w.sep()
	if w.json {
		w.b, w.err = appendJSONDict(w.b, d, 0)
	} else {
		w.b, w.err = appendDict(w.b, d, 1)
	}
}

// list writes a list element; nil is written as nil. (A list passed as
// an any would be copied to the heap.)
func (w *writer) list(l []any) {
	if w.err != nil {
		return
	}
	w.sep()
	if w.json {
		w.b, w.err = appendJSONList(w.b, l, 0)
	} else {
		w.b, w.err = appendList(w.b, l, 1)
	}
}

// payload writes the n payload elements (wire.PayloadElems).
func (w *writer) payload(n int, args []any, kwargs map[string]any) {
	if n >= 1 {
		w.list(args)
	}
	if n == 2 {
		w.dict(kwargs)
	}
}

// decode reads one message from b, which is the link's read buffer:
// nothing decoded refers to it. keys caches the map keys; stack is the
// JSON parser's scratch (nil: one for this message).
func decode(b []byte, json bool, keys *keyCache, stack *[]any) (message, error) {
	if json {
		if stack == nil {
			stack = new([]any)
		}
		l, err := decodeJSON(b, keys, stack)
		if err != nil {
			return nil, err
		}
		return fromList(l, true)
	}
	if msg, ok := parseMessage(b, keys); ok {
		return msg, nil
	}
	p := parser{b: b, keys: keys}
	v := p.value(0)
	if p.bad || len(p.b) != 0 {
		return nil, errors.New("malformed msgpack")
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("a message is a list, not a %T", v)
	}
	return fromList(l, false)
}

// fromList reads a message from its elements, decoded already in normal
// form (from JSON, the strings of the binary convention are converted in
// the payload). A type the engine does not handle is an otherMsg; an ABORT
// is read leniently (abort.go).
func fromList(l []any, json bool) (message, error) {
	if len(l) == 0 {
		return nil, errors.New("an empty message")
	}
	f := fields{l: l, json: json}
	t := msgType(f.int())
	if f.err != nil {
		return nil, errors.New("the message type is not an integer")
	}
	if t == mtAbort {
		return abortOf(l[1:]), nil
	}
	var msg message
	switch n := len(l); t {
	case mtWelcome:
		f.arity(n, 3, 3)
		msg = &welcomeMsg{ID: f.id(), Details: f.dict()}
	case mtChallenge:
		f.arity(n, 3, 3)
		msg = &challengeMsg{AuthMethod: f.str(), Extra: f.dict()}
	case mtGoodbye:
		f.arity(n, 3, 3)
		msg = &goodbyeMsg{Details: f.dict(), Reason: f.str()}
	case mtError:
		f.arity(n, 5, 7)
		m := &errorMsg{Type: msgType(f.int()), Request: f.id(), Details: f.dict(), Error: f.str()}
		m.Args, m.Kwargs = f.payload()
		msg = m
	case mtPublished:
		f.arity(n, 3, 3)
		msg = &publishedMsg{Request: f.id(), Publication: f.id()}
	case mtSubscribed:
		f.arity(n, 3, 3)
		msg = &subscribedMsg{Request: f.id(), Subscription: f.id()}
	case mtUnsubscribed:
		f.arity(n, 2, 3)
		msg = &unsubscribedMsg{Request: f.id()}
		f.optionalDict()
	case mtEvent:
		f.arity(n, 4, 6)
		m := &eventMsg{Subscription: f.id(), Publication: f.id(), Details: f.dict()}
		m.Args, m.Kwargs = f.payload()
		msg = m
	case mtResult:
		f.arity(n, 3, 5)
		m := &resultMsg{Request: f.id(), Details: f.dict()}
		m.Args, m.Kwargs = f.payload()
		m.progress, _ = m.Details[wire.OptProgress].(bool)
		msg = m
	case mtRegistered:
		f.arity(n, 3, 3)
		msg = &registeredMsg{Request: f.id(), Registration: f.id()}
	case mtUnregistered:
		f.arity(n, 2, 3)
		m := &unregisteredMsg{Request: f.id()}
		if id, ok := f.optionalDict()["registration"].(int64); ok && m.Request == 0 {
			m.Registration = uint64(id)
		}
		msg = m
	case mtInvocation:
		f.arity(n, 4, 6)
		m := &invocationMsg{Request: f.id(), Registration: f.id(), Details: f.dict()}
		m.Args, m.Kwargs = f.payload()
		m.invocationDetails.from(m.Details)
		msg = m
	case mtInterrupt:
		f.arity(n, 3, 3)
		msg = &interruptMsg{Request: f.id(), Options: f.dict()}
	default:
		return otherMsg{typ: t}, nil
	}
	if f.err != nil {
		return nil, fmt.Errorf("%s: %w", t, f.err)
	}
	return msg, nil
}

// fields reads the elements of a message after its type, in order; the
// first one of the wrong form stops it.
type fields struct {
	l    []any
	json bool
	err  error
}

// arity checks that the message has min to max elements, its type
// included.
func (f *fields) arity(n, min, max int) {
	if n < min || n > max {
		f.err = fmt.Errorf("%d elements, want %d to %d", n, min, max)
	}
}

// next returns the next element; in JSON, with the binary convention
// applied when it is a payload element (binary set).
func (f *fields) next(binary bool) any {
	if f.err != nil || len(f.l) == 0 {
		if f.err == nil {
			f.err = errors.New("an element is missing")
		}
		return nil
	}
	v := f.l[0]
	f.l = f.l[1:]
	if f.json && binary {
		v = jsonBinaries(v)
	}
	return v
}

func (f *fields) fail(what string, v any) {
	if f.err == nil {
		f.err = fmt.Errorf("%s expected, got %T", what, v)
	}
}

func (f *fields) int() int64 {
	v := f.next(false)
	i, ok := v.(int64)
	if !ok {
		f.fail("an integer", v)
	}
	return i
}

// id reads an ID: an integer, converted as nexus converts it (a negative
// one wraps around).
func (f *fields) id() uint64 {
	switch x := f.next(false).(type) {
	case int64:
		return uint64(x)
	case uint64:
		return x
	default:
		f.fail("an id", x)
		return 0
	}
}

func (f *fields) str() string {
	v := f.next(false)
	s, ok := v.(string)
	if !ok {
		f.fail("a string", v)
	}
	return s
}

// dict reads a dictionary; nil stays nil.
func (f *fields) dict() map[string]any {
	switch x := f.next(false).(type) {
	case nil:
		return nil
	case map[string]any:
		return x
	default:
		f.fail("a dictionary", x)
		return nil
	}
}

// optionalDict reads a dictionary when one is left.
func (f *fields) optionalDict() map[string]any {
	if len(f.l) == 0 {
		return nil
	}
	return f.dict()
}

// payload reads the payload elements left (none, args, or args and
// kwargs); nil elements stay nil.
func (f *fields) payload() ([]any, map[string]any) {
	var args []any
	var kwargs map[string]any
	if len(f.l) > 0 {
		switch x := f.next(true).(type) {
		case nil:
		case []any:
			args = x
		default:
			f.fail("a list", x)
		}
	}
	if len(f.l) > 0 {
		switch x := f.next(true).(type) {
		case nil:
		case map[string]any:
			kwargs = x
		default:
			f.fail("a dictionary", x)
		}
	}
	return args, kwargs
}
