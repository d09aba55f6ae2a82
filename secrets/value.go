// This file holds Placeholder and Value, the secret column of a Go struct
// that is written to a table: keep the stored secret (the zero Value),
// set a new one, or clear it.

package secrets

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
)

// Placeholder is what every read path but Reveal shows instead of a
// non-null secret (the seed's SECRET_PLACEHOLDER). Written back to a
// secret column of a table with an entity key (maintainLatestFlagFor) it
// keeps the entity's stored secret, as leaving the column out does; an
// explicit null clears it. On a table without an entity key the platform
// refuses it (sys.dataservice.error.secret_sentinel_unresolvable).
const Placeholder = "__secret__"

// Value is a secret column in a Go struct written to a table with
// package client (AppendToTable, PublishRowsToTable, …). Its zero value
// means keep: it is written as Placeholder, or left out under omitzero,
// and either way the entity's stored secret stays; omitempty never drops
// it, because a struct is never empty. Set writes a new secret and Clear
// writes null, which clears it. So a row read back, changed and written
// again cannot clear a secret by accident. Use Value itself, not a
// pointer: a nil *Value is written as null, which clears.
//
// Read back (client.DecodeRows, Row.Decode), Placeholder and null decode
// to the zero Value (keeping a NULL keeps it NULL) and any other string,
// as Reveal returns it, to Set of that string.
//
// Value keeps the plaintext out of fmt and log/slog output: it prints as
// secrets.Keep(), secrets.Set(…) or secrets.Clear() (fmt cannot call the
// methods of an unexported struct field, so such a field prints its
// insides).
type Value struct {
	op    valueOp
	plain string
}

type valueOp uint8

const (
	opKeep valueOp = iota
	opSet
	opClear
)

// Keep returns the zero Value: keep the stored secret.
func Keep() Value { return Value{} }

// Set returns a Value that writes plaintext as the new secret; the
// platform encrypts it. An empty plaintext is a secret too, not NULL.
func Set(plaintext string) Value { return Value{op: opSet, plain: plaintext} }

// Clear returns a Value that writes null: the stored secret is cleared.
func Clear() Value { return Value{op: opClear} }

// IsKeep reports the zero Value.
func (v Value) IsKeep() bool { return v.op == opKeep }

// IsClear reports a Value made by Clear.
func (v Value) IsClear() bool { return v.op == opClear }

// Plaintext returns the secret of a Value made by Set (or decoded from a
// revealed row); ok is false for Keep and Clear.
func (v Value) Plaintext() (plaintext string, ok bool) { return v.plain, v.op == opSet }

// IsZero reports Keep, so that a field tagged omitzero leaves the column
// out, which keeps the stored secret too.
func (v Value) IsZero() bool { return v.op == opKeep }

// MarshalJSON writes Placeholder for Keep, the plaintext for Set and null
// for Clear.
func (v Value) MarshalJSON() ([]byte, error) {
	switch v.op {
	case opSet:
		return json.Marshal(v.plain)
	case opClear:
		return []byte("null"), nil
	}
	return json.Marshal(Placeholder)
}

// UnmarshalJSON reads a secret column as a read returns it: Placeholder
// and null are Keep, any other string is Set of it.
func (v *Value) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*v = Keep()
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	if s == Placeholder {
		*v = Keep()
		return nil
	}
	*v = Set(s)
	return nil
}

// String returns secrets.Keep(), secrets.Set(…) or secrets.Clear(),
// never the plaintext.
func (v Value) String() string {
	switch v.op {
	case opSet:
		return "secrets.Set(…)"
	case opClear:
		return "secrets.Clear()"
	}
	return "secrets.Keep()"
}

// Format prints String for every verb (%v, %#v, %d, …), so that fmt
// never prints the plaintext.
func (v Value) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, v.String()) }

// LogValue is String, so that log/slog does not log the plaintext.
func (v Value) LogValue() slog.Value { return slog.StringValue(v.String()) }
