// This file holds the fields of a Go argument struct as encoding/json sees
// them: their JSON names, types and whether they are optional.

package agent

import (
	"reflect"
	"slices"
	"strings"
)

// goField is one field of an argument struct.
type goField struct {
	name     string       // the JSON name
	goName   string       // the Go name, for messages
	typ      reflect.Type // the field's type
	optional bool         // a pointer, or tagged omitempty or omitzero
}

// jsonFields lists the fields of struct type t by the rules of
// encoding/json: exported fields by their json tag name or Go name, "-"
// skipped, untagged embedded structs flattened, and of several fields of
// one name the shallowest (a tagged one among equals; none when that is
// ambiguous).
func jsonFields(t reflect.Type) []goField {
	type candidate struct {
		goField
		depth  int
		tagged bool
	}
	var all []candidate
	var walk func(t reflect.Type, depth int)
	walk = func(t reflect.Type, depth int) {
		for i := range t.NumField() {
			f := t.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			ft := f.Type
			if f.Anonymous && name == "" {
				et := ft
				if et.Kind() == reflect.Pointer {
					et = et.Elem()
				}
				if et.Kind() == reflect.Struct {
					if depth < 8 {
						walk(et, depth+1)
					}
					continue
				}
			}
			if !f.IsExported() {
				continue
			}
			tagged := name != ""
			if !tagged {
				name = f.Name
			}
			tagOpts := strings.Split(opts, ",")
			all = append(all, candidate{goField: goField{
				name: name, goName: f.Name, typ: ft,
				optional: ft.Kind() == reflect.Pointer || slices.Contains(tagOpts, "omitempty") || slices.Contains(tagOpts, "omitzero"),
			}, depth: depth, tagged: tagged})
		}
	}
	walk(t, 0)
	var out []goField
	done := map[string]bool{}
	for _, c := range all {
		if done[c.name] {
			continue
		}
		done[c.name] = true
		var best []candidate
		for _, o := range all {
			switch {
			case o.name != c.name:
			case len(best) == 0 || o.depth < best[0].depth:
				best = []candidate{o}
			case o.depth == best[0].depth:
				best = append(best, o)
			}
		}
		if len(best) > 1 {
			var tagged []candidate
			for _, b := range best {
				if b.tagged {
					tagged = append(tagged, b)
				}
			}
			best = tagged
		}
		if len(best) == 1 {
			out = append(out, best[0].goField)
		}
	}
	return out
}
