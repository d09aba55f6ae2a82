package storetest

import "math/rand/v2"

// RandomDoc returns a random json column value of up to three levels:
// numbers written in several ways, texts that look like numbers, booleans,
// null, and lists and objects of them, for the tests that compare how two
// stores (or Go and SQL) read the same documents.
func RandomDoc(r *rand.Rand, depth int) any {
	scalars := []any{nil, 1.0, 2.5, -7.0, 1e21, 1e-7, "x", "15", " 3.5 ", "abc", "0b101", "", true, false}
	switch n := r.IntN(10); {
	case depth > 1 || n < 4:
		return scalars[r.IntN(len(scalars))]
	case n < 6:
		l := make([]any, r.IntN(4))
		for i := range l {
			l[i] = RandomDoc(r, depth+1)
		}
		return l
	default:
		m := map[string]any{}
		for _, k := range []string{"a", "b", "c", "0", "<k>"} {
			if r.IntN(2) == 0 {
				m[k] = RandomDoc(r, depth+1)
			}
		}
		return m
	}
}
