// This file holds the ordering helper of the entity lists.

package registry

import (
	"maps"
	"slices"
)

// sortedByKey returns the values of m ordered by their key.
func sortedByKey[T any](m map[int]T) []T {
	keys := slices.Sorted(maps.Keys(m))
	out := make([]T, 0, len(keys))
	for _, k := range keys {
		out = append(out, m[k])
	}
	return out
}
