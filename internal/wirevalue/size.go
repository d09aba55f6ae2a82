package wirevalue

// Size returns about how many bytes v takes encoded with msgpack: the
// header of each string, binary, list and map and the width of each
// scalar, added up. It is a bound for budgets, not an exact length.
func Size(v any) int {
	switch x := v.(type) {
	case nil, bool:
		return 1
	case string:
		return len(x) + 5
	case []byte:
		return len(x) + 5
	case []any:
		n := 5
		for _, e := range x {
			n += Size(e)
		}
		return n
	case map[string]any:
		n := 5
		for k, e := range x {
			n += len(k) + 5 + Size(e)
		}
		return n
	case map[any]any:
		n := 5
		for k, e := range x {
			n += Size(k) + Size(e)
		}
		return n
	default:
		if p, ok := plain(v); ok {
			return Size(p)
		}
		return 9
	}
}
