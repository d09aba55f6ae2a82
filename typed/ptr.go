// This file holds Ptr, the value of a nullable column.

package typed

// Ptr returns a pointer to v: the value of a nullable column of a
// generated row type (Temperature: typed.Ptr(21.5)). From Go 1.26 on,
// new(21.5) does the same.
func Ptr[T any](v T) *T { return &v }
