package worldtest

// Col returns one column of rows, for compact comparisons.
func Col(rows []map[string]any, col string) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[col]
	}
	return out
}

// Q returns a query of key, value pairs.
func Q(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// Pred returns a filter predicate on col with operator op and, when
// given, one value.
func Pred(col, op string, value ...any) map[string]any {
	m := map[string]any{"column": col, "operator": op}
	if len(value) == 1 {
		m["value"] = value[0]
	}
	return m
}

// List returns its arguments as a list; never nil, which would travel as
// null.
func List(v ...any) []any {
	if v == nil {
		return []any{}
	}
	return v
}
