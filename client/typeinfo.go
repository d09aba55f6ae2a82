// This file holds typeInfo: what the encoder and decoder look up about a
// type, once per type, in a map with a few recent types in front of it
// (a device mostly sends and receives the same one or two).

package client

import (
	"reflect"
	"sync"
	"sync/atomic"
)

// typeInfo is what is known of a type.
type typeInfo struct {
	t reflect.Type
	// viaWire: decoded from its wire form (decode_raw.go): a time, or a
	// type with UnmarshalJSON or UnmarshalText.
	viaWire bool
	// plain: written as its kind says (encode_raw.go): no time,
	// json.Number, MarshalJSON or MarshalText (of t or, but for pointers
	// and interfaces, of *t).
	plain bool
	// For a struct: its fields (fieldsOf), and whether every one of them is
	// always written (no omitempty or omitzero, none through an embedded
	// pointer), so that a map of them has len(fields) entries.
	fields []structField
	fixed  bool
}

var (
	typeInfos sync.Map // reflect.Type → *typeInfo
	// recentTypes are the last types looked up, in front of typeInfos.
	recentTypes [4]atomic.Pointer[typeInfo]
	recentNext  atomic.Uint32
)

// infoOf returns what is known of t.
func infoOf(t reflect.Type) *typeInfo {
	for i := range recentTypes {
		if ti := recentTypes[i].Load(); ti != nil && ti.t == t {
			return ti
		}
	}
	var ti *typeInfo
	if v, ok := typeInfos.Load(t); ok {
		ti = v.(*typeInfo)
	} else {
		ti = newTypeInfo(t)
		if v, loaded := typeInfos.LoadOrStore(t, ti); loaded {
			ti = v.(*typeInfo)
		}
	}
	recentTypes[recentNext.Add(1)%uint32(len(recentTypes))].Store(ti)
	return ti
}

func newTypeInfo(t reflect.Type) *typeInfo {
	ti := &typeInfo{t: t}
	pt := reflect.PointerTo(t)
	ti.viaWire = t == timeType || pt.Implements(jsonUnmarshalerType) || pt.Implements(textUnmarshalerType)
	marshals := func(t reflect.Type) bool {
		return t.Implements(jsonMarshalerType) || t.Implements(textMarshalerType)
	}
	switch t.Kind() {
	case reflect.Interface:
		ti.plain = true
	case reflect.Pointer:
		ti.plain = t.Elem() != timeType && !marshals(t)
	default:
		ti.plain = t != timeType && t != jsonNumberType && !marshals(t) && !marshals(pt)
	}
	if t.Kind() != reflect.Struct {
		return ti
	}
	ti.fields = resolveFields(t)
	ti.fixed = true
	for i := range ti.fields {
		f := &ti.fields[i]
		ft := infoOf(f.typ)
		k := f.typ.Kind()
		f.viaWire = k != reflect.Pointer && k != reflect.Interface && ft.viaWire
		f.plain = ft.plain
		if f.omitEmpty || f.omitZero || len(f.index) > 1 {
			ti.fixed = false
		}
	}
	return ti
}

// fieldsOf returns the fields of struct type t following the rules of
// encoding/json: tags name and drop fields, embedded structs promote their
// fields, and among fields with the same name the shallowest wins, then a
// tagged one, else all of them are dropped.
func fieldsOf(t reflect.Type) []structField { return infoOf(t).fields }

// wireFormOnly reports whether t is decoded from its wire form: a time,
// or a type with its own decoding.
func wireFormOnly(t reflect.Type) bool { return infoOf(t).viaWire }

// plainType reports whether values of t are written as their kind says,
// as the encoder writes them.
func plainType(t reflect.Type) bool { return infoOf(t).plain }
