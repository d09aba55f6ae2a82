// This file holds how a backend keys a row by its entity: the entity key
// of a row's values and the key of one stored value.

package store

import (
	"math"
	"strconv"
	"strings"
)

// EntityKeyOf encodes the entity key of a row's values of the table;
// complete is false when the table has none or a key value is
// NULL (such rows never conflict and are not merged).
func (s *TableSchema) EntityKeyOf(vals []any) (key string, complete bool) {
	if len(s.EntityKey) == 0 {
		return "", false
	}
	var sb strings.Builder
	complete = true
	for _, i := range s.EntityKey {
		sb.WriteString(ValueKey(vals[i]))
		sb.WriteByte(0x1f)
		if vals[i] == nil {
			complete = false
		}
	}
	return sb.String(), complete
}

// ValueKey encodes a stored value so that equal values give equal keys.
func ValueKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "\x00"
	case string:
		return "s" + x
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e18 {
			return "i" + strconv.FormatInt(int64(x), 10)
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "b" + strconv.FormatBool(x)
	}
	return "j" + JSONText(v)
}
