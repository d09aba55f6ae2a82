// This file holds the struct fields the encoder and decoder see, resolved
// from json tags the way encoding/json does (cached per type: typeinfo.go).

package client

import (
	"reflect"
	"sort"
	"strings"
)

// structField is one field of a struct as encoding/json sees it: its JSON
// name, the index path through embedded structs, and its tag options.
type structField struct {
	name      string
	index     []int
	typ       reflect.Type
	omitEmpty bool
	omitZero  bool
	quoted    bool // ",string"
	tagged    bool
	// For decoding from and writing to a message directly (decode_raw.go,
	// encode_raw.go): the field's type goes through its wire form when
	// decoded (viaWire), and is written as its kind says (plain).
	viaWire, plain bool
}

func resolveFields(t reflect.Type) []structField {
	type pending struct {
		typ   reflect.Type
		index []int
	}
	var all []structField
	current := []pending{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(current) > 0 {
		var next []pending
		// count how often each embedded type appears at this depth: a type
		// embedded twice at the same depth contributes nothing.
		seenHere := map[reflect.Type]int{}
		for _, p := range current {
			seenHere[p.typ]++
		}
		for _, p := range current {
			if visited[p.typ] {
				continue
			}
			visited[p.typ] = true
			for i := 0; i < p.typ.NumField(); i++ {
				sf := p.typ.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(append([]int(nil), p.index...), i)
				if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
					next = append(next, pending{typ: ft, index: index})
					continue
				}
				f := structField{
					name:      name,
					index:     index,
					typ:       sf.Type,
					omitEmpty: hasOpt(opts, "omitempty"),
					omitZero:  hasOpt(opts, "omitzero"),
					tagged:    name != "",
				}
				if f.name == "" {
					f.name = sf.Name
				}
				if hasOpt(opts, "string") {
					switch ft.Kind() {
					case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
						reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
						reflect.Float32, reflect.Float64, reflect.String:
						f.quoted = true
					}
				}
				all = append(all, f)
				if seenHere[p.typ] > 1 {
					// the same struct embedded twice at one depth: its
					// fields annihilate each other, as in encoding/json.
					all = append(all, f)
				}
			}
		}
		current = next
	}
	// Dominance: per name keep the shallowest; at equal depth a single
	// tagged field wins; otherwise the name is dropped.
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].name != all[j].name {
			return all[i].name < all[j].name
		}
		if len(all[i].index) != len(all[j].index) {
			return len(all[i].index) < len(all[j].index)
		}
		return all[i].tagged && !all[j].tagged
	})
	var out []structField
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		group := all[i:j]
		if f, ok := dominant(group); ok {
			out = append(out, f)
		}
		i = j
	}
	sort.Slice(out, func(i, j int) bool { return lessIndex(out[i].index, out[j].index) })
	return out
}

func dominant(group []structField) (structField, bool) {
	if len(group) == 1 {
		return group[0], true
	}
	depth := len(group[0].index)
	var tagged []structField
	n := 0
	for _, f := range group {
		if len(f.index) != depth {
			break
		}
		n++
		if f.tagged {
			tagged = append(tagged, f)
		}
	}
	switch {
	case n == 1:
		return group[0], true
	case len(tagged) == 1:
		return tagged[0], true
	default:
		return structField{}, false
	}
}

func lessIndex(a, b []int) bool {
	for k := 0; k < len(a) && k < len(b); k++ {
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}

func hasOpt(opts, want string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == want {
			return true
		}
	}
	return false
}

// fieldByIndex walks an index path, returning false when it crosses a nil
// embedded pointer.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}
