package wirevalue

import "slices"

// Clone returns a deep copy of v in normal form (see Normalize): every map,
// list and byte slice is new, so the copy shares nothing mutable with v.
// Named containers (nexus's wamp.Dict and wamp.List) become plain ones;
// other values are returned as they are. A nil map or list stays nil, as
// Normalize keeps it.
func Clone(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = Clone(e)
		}
		return m
	case map[any]any:
		if x == nil {
			return map[string]any(nil)
		}
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[keyString(k)] = Clone(e)
		}
		return m
	case []any:
		if x == nil {
			return x
		}
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = Clone(e)
		}
		return l
	case []byte:
		return slices.Clone(x)
	default:
		if p, ok := plain(v); ok {
			return Clone(p)
		}
		return Normalize(v, false)
	}
}

// CloneList deep-copies a positional argument list; nil stays nil.
func CloneList(l []any) []any {
	if l == nil {
		return nil
	}
	return Clone(l).([]any)
}

// CloneDict deep-copies a keyword argument dictionary; nil stays nil.
func CloneDict(d map[string]any) map[string]any {
	if d == nil {
		return nil
	}
	return Clone(d).(map[string]any)
}
