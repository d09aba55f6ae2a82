// This file holds Encode: the wire form of a value, for packages built on
// the client that keep values to send later (package outbox stores table
// rows on disk in that form, so a row is converted once, when appended).

package client

// Encode returns the wire form of v, the form every argument of the
// client travels in (docs/wire.md §9): map[string]any, []any, string,
// int64, uint64 (above MaxInt64 only), float64, bool, []byte and nil.
// Structs follow their json tags, times become RFC 3339 strings in UTC,
// []byte stays binary and floats stay floats, exactly as PublishToTable,
// AppendRowsToTable and the other operations encode their arguments;
// encoding the result again gives it back unchanged. A value that cannot
// be encoded (a channel, a cycle, a time outside the years 0–9999, …)
// fails with ErrInvalidArgument.
func Encode(v any) (any, error) {
	w, err := encodeValue(v, "value")
	if err != nil {
		return nil, invalidArg("Encode", "", "%v", err)
	}
	return w, nil
}
