// This file holds the lazy read of the messages a device receives most as
// answers and work: PUBLISHED, RESULT and INVOCATION. The reader takes
// their header and the few details the session uses (a RESULT's progress,
// an INVOCATION's timeout, progress and caller) without building a
// details map, and leaves the payload encoded (rawPayload) for dispatch,
// which decodes it on the reader as before or hands a copy to a taker
// that reads it itself (Reader). Each is read into the link's own message
// of its type, valid until the next message is read: dispatch copies what
// it keeps. Whatever the lazy read does not take, decode reads; where it
// stops on a malformed message, decode fails as it always did. What it
// reads is what decode reads from the same bytes (lazy_test.go).

package engine

import (
	"math"

	"github.com/flockgo/ironflock/internal/wire"
)

// lazyMsgs are the link's messages of the lazy read, one per type.
type lazyMsgs struct {
	result     resultMsg
	published  publishedMsg
	invocation invocationMsg
}

// made returns *lz, made first if need be.
func made(lz **lazyMsgs) *lazyMsgs {
	if *lz == nil {
		*lz = new(lazyMsgs)
	}
	return *lz
}

// decodeLazy reads a PUBLISHED, RESULT or INVOCATION from b into *lz,
// made when first needed (a link that reads none holds none); nil for any
// other message, or one it cannot read.
func decodeLazy(b []byte, json bool, keys *keyCache, lz **lazyMsgs) message {
	if json {
		return lazyJSON(b, keys, lz)
	}
	p := parser{b: b, keys: keys}
	n, typ, ok := p.begin()
	if !ok {
		return nil
	}
	var msg message
	switch {
	case typ == mtPublished && n == 3:
		m := made(lz)
		m.published = publishedMsg{Request: p.id(), Publication: p.id()}
		msg = &m.published
	case typ == mtResult && n >= 3 && n <= 5:
		m := &made(lz).result
		*m = resultMsg{Request: p.id()}
		p.details(func(k []byte) bool {
			if string(k) != wire.OptProgress {
				return false
			}
			m.progress, _ = p.value(1).(bool)
			return true
		})
		m.raw = rawPayload{b: p.b, n: n - 3, lazy: true}
		p.b = nil
		msg = m
	case typ == mtInvocation && n >= 4 && n <= 6:
		m := &made(lz).invocation
		*m = invocationMsg{Request: p.id(), Registration: p.id()}
		p.details(func(k []byte) bool {
			d := &m.invocationDetails
			switch {
			case string(k) == wire.OptTimeout:
				d.setTimeout(p.whole())
			case string(k) == wire.OptReceiveProgress:
				d.progress, _ = p.value(1).(bool)
			case string(k) == "caller":
				d.setCaller(p.whole())
			case string(k) == "caller_authid":
				d.callerAuthID = p.detailText()
			case string(k) == wire.OptTraceParent:
				d.trace.Parent = p.uniqueText()
			case string(k) == wire.OptTraceState:
				d.trace.State = p.uniqueText()
			default:
				return false
			}
			return true
		})
		m.raw = rawPayload{b: p.b, n: n - 4, lazy: true}
		p.b = nil
		msg = m
	default:
		return nil
	}
	if p.bad || len(p.b) != 0 {
		return nil
	}
	return msg
}

// lazyJSON is decodeLazy for JSON.
func lazyJSON(b []byte, keys *keyCache, lz **lazyMsgs) message {
	p := jsonParser{b: b, keys: keys}
	typ, ok := p.begin()
	if !ok {
		return nil
	}
	var msg message
	switch typ {
	case mtPublished:
		m := made(lz)
		m.published = publishedMsg{Request: p.id(), Publication: p.id()}
		p.elements(func(int) { p.fail("an element too many") })
		msg = &m.published
	case mtResult:
		m := &made(lz).result
		*m = resultMsg{Request: p.id()}
		p.details(func(k []byte) bool {
			if string(k) != wire.OptProgress {
				return false
			}
			m.progress, _ = p.value(1).(bool)
			return true
		})
		m.raw = rawPayload{b: p.b[p.i:], json: true, lazy: true}
		msg = m
	case mtInvocation:
		m := &made(lz).invocation
		*m = invocationMsg{Request: p.id(), Registration: p.id()}
		p.details(func(k []byte) bool {
			d := &m.invocationDetails
			switch {
			case string(k) == wire.OptTimeout:
				d.setTimeout(p.whole())
			case string(k) == wire.OptReceiveProgress:
				d.progress, _ = p.value(1).(bool)
			case string(k) == "caller":
				d.setCaller(p.whole())
			case string(k) == "caller_authid":
				d.callerAuthID = p.detailText()
			case string(k) == wire.OptTraceParent:
				d.trace.Parent = p.uniqueText()
			case string(k) == wire.OptTraceState:
				d.trace.State = p.uniqueText()
			default:
				return false
			}
			return true
		})
		m.raw = rawPayload{b: p.b[p.i:], json: true, lazy: true}
		msg = m
	default:
		return nil
	}
	if p.err != nil {
		return nil
	}
	return msg
}

// internText returns the detail text b, kept by the link's key cache when
// short enough: the same caller's authid comes with every invocation.
func internText(keys *keyCache, b []byte) string {
	if keys == nil || len(b) > maxInternedText {
		return string(b)
	}
	return keys.intern(b)
}

func (d *invocationDetails) setTimeout(ms int64, ok bool) {
	if ok && ms > 0 {
		d.timeout = ms
	}
}

func (d *invocationDetails) setCaller(id int64, ok bool) {
	if ok && id > 0 {
		d.caller = uint64(id)
	}
}

// from reads the details the session uses from a details map, as the
// lazy read takes them.
func (d *invocationDetails) from(details map[string]any) {
	d.setTimeout(detailInt(details[wire.OptTimeout]))
	d.progress, _ = details[wire.OptReceiveProgress].(bool)
	d.callerAuthID, _ = details["caller_authid"].(string)
	d.setCaller(detailInt(details["caller"]))
	d.trace = traceOf(details)
}

// whole reads a number as detailInt takes it from a decoded value.
func (n wireNumber) whole() (int64, bool) {
	switch n.kind {
	case 'i':
		return n.i, true
	case 'f':
		if n.f == math.Trunc(n.f) && n.f >= math.MinInt64 && n.f < math.MaxInt64 {
			return int64(n.f), true
		}
	}
	return 0, false
}

// begin reads the start of a message: the elements it has and its type.
func (p *parser) begin() (int, msgType, bool) {
	n := p.arrayLen()
	if p.bad || n < 1 || !p.isNumber() {
		return 0, 0, false
	}
	t := p.number()
	return n, msgType(t.i), t.kind == 'i' && !p.bad
}

// details walks a details dictionary (null allowed) as dict reads it: take
// reads the value of a key it wants and reports true, else the value is
// skipped.
func (p *parser) details(take func(k []byte) bool) {
	switch c := p.peek(); {
	case c == 0xc0:
		p.u8()
		return
	case !isMap(c):
		p.bad = true
		return
	}
	p.entries(p.mapLen(), 0, take)
}

// whole reads a detail as detailInt takes it from a decoded one.
func (p *parser) whole() (int64, bool) {
	if !p.isNumber() {
		p.skip(1)
		return 0, false
	}
	return p.number().whole()
}

// detailText reads a detail that is a string ("" for anything else), a
// short one from the key cache.
func (p *parser) detailText() string {
	c := p.peek()
	if c >= 0xa0 && c <= 0xbf || c >= 0xd9 && c <= 0xdb {
		p.u8()
		s, _ := p.str(c)
		return internText(p.keys, s)
	}
	p.skip(1)
	return ""
}

// uniqueText is detailText for a text that differs with every message (a
// traceparent): never kept by the key cache.
func (p *parser) uniqueText() string {
	c := p.peek()
	if c >= 0xa0 && c <= 0xbf || c >= 0xd9 && c <= 0xdb {
		p.u8()
		s, _ := p.str(c)
		return string(s)
	}
	p.skip(1)
	return ""
}

// isNumber reports whether a number (an integer or a float) is next.
func (p *parser) isNumber() bool {
	c := p.peek()
	return c <= 0x7f && len(p.b) > 0 || c >= 0xe0 || c >= 0xca && c <= 0xd3
}

// number reads an integer or a float.
func (p *parser) number() wireNumber {
	c := p.u8()
	switch {
	case p.bad:
		return wireNumber{}
	case c <= 0x7f:
		return wireNumber{kind: 'i', i: int64(c)}
	case c >= 0xe0:
		return wireNumber{kind: 'i', i: int64(int8(c))}
	}
	switch c {
	case 0xca:
		return wireNumber{kind: 'f', f: float64(math.Float32frombits(p.u32()))}
	case 0xcb:
		return wireNumber{kind: 'f', f: math.Float64frombits(p.u64())}
	case 0xcc:
		return wireNumber{kind: 'i', i: int64(p.u8())}
	case 0xcd:
		return wireNumber{kind: 'i', i: int64(p.u16())}
	case 0xce:
		return wireNumber{kind: 'i', i: int64(p.u32())}
	case 0xcf:
		if u := p.u64(); u > math.MaxInt64 {
			return wireNumber{kind: 'u', u: u}
		} else {
			return wireNumber{kind: 'i', i: int64(u)}
		}
	case 0xd0:
		return wireNumber{kind: 'i', i: int64(int8(p.u8()))}
	case 0xd1:
		return wireNumber{kind: 'i', i: int64(int16(p.u16()))}
	case 0xd2:
		return wireNumber{kind: 'i', i: int64(int32(p.u32()))}
	case 0xd3:
		return wireNumber{kind: 'i', i: int64(p.u64())}
	}
	p.bad = true
	return wireNumber{}
}

// begin reads the start of a message: its type.
func (p *jsonParser) begin() (msgType, bool) {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '[' {
		return 0, false
	}
	p.i++
	p.ws()
	if !p.isNumber() {
		return 0, false
	}
	t := p.num()
	return msgType(t.i), t.kind == 'i' && p.err == nil
}

// isNumber reports whether a number starts at the cursor.
func (p *jsonParser) isNumber() bool {
	return p.i < len(p.b) && (p.b[p.i] == '-' || p.b[p.i] >= '0' && p.b[p.i] <= '9')
}

// sep reads the ',' before an element.
func (p *jsonParser) sep() bool {
	p.ws()
	if p.err != nil || p.i >= len(p.b) || p.b[p.i] != ',' {
		p.fail("',' expected")
		return false
	}
	p.i++
	p.ws()
	return true
}

// id reads an id element as fields.id does.
func (p *jsonParser) id() uint64 {
	if !p.sep() {
		return 0
	}
	if !p.isNumber() {
		p.fail("an id expected")
		return 0
	}
	switch n := p.num(); n.kind {
	case 'i':
		return uint64(n.i)
	case 'u':
		return n.u
	}
	p.fail("an id expected")
	return 0
}

// details walks a details element as parser.details does.
func (p *jsonParser) details(take func(k []byte) bool) {
	if !p.sep() {
		return
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == 'n':
		p.literal("null")
		return
	case p.i >= len(p.b) || p.b[p.i] != '{':
		p.fail("a dictionary expected")
		return
	}
	p.entries(1, take)
}

// whole reads a detail as detailInt takes it from a decoded one.
func (p *jsonParser) whole() (int64, bool) {
	p.ws()
	if !p.isNumber() {
		p.skip(1)
		return 0, false
	}
	return p.num().whole()
}

// detailText reads a detail that is a string ("" for anything else), a
// short one from the key cache.
func (p *jsonParser) detailText() string {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		p.skip(1)
		return ""
	}
	return internText(p.keys, p.text())
}

// uniqueText is detailText for a text that differs with every message (a
// traceparent): never kept by the key cache.
func (p *jsonParser) uniqueText() string {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		p.skip(1)
		return ""
	}
	return string(p.text())
}
