// This file holds Schema, what generated code tells the handles about a
// table, and Message, a table write in the shape of the template's column
// paths.

package typed

import (
	"strconv"

	"github.com/flockgo/ironflock/client"
)

// Schema describes the rows of one table or transform to its handles.
// flockgen generates one per table from the data template.
type Schema[R any] struct {
	// Table is the table or transform name.
	Table string
	// Encode writes a row as the message the data template's column paths
	// describe. Nil for transforms and other apps' tables, which are read
	// only.
	Encode func(row R) (Message, error)
	// Decode reads rows as reads return them: flat, by column id.
	Decode func(rows []client.Row) ([]R, error)
	// NoBulk, when not empty, is why rows of the table cannot be written
	// in bulk (a column written at args[1] or beyond, which a bulk write
	// does not carry).
	NoBulk string
}

// Message is one table write: the positional arguments, whose first is
// the row object, and the keyword arguments, both in wire form (the
// values package client sends as they are).
type Message struct {
	Args   []any
	Kwargs map[string]any
}

// Row returns the row object, Args[0], creating it with room for n
// columns when absent.
func (m *Message) Row(n int) map[string]any {
	if len(m.Args) > 0 {
		if row, ok := m.Args[0].(map[string]any); ok {
			return row
		}
	}
	row := make(map[string]any, n)
	if len(m.Args) == 0 {
		m.Args = []any{row}
	} else {
		m.Args[0] = row
	}
	return row
}

// Set writes v at path, the keys of a column path as package template's
// PathKeys gives them: "args" and an index, or "kwargs", then object
// keys. Objects on the way are created (a key of digits below args[i] is
// an object key too, which is how the platform reads it); Args grows with
// nulls to reach the index. A path of another shape, or one through a
// value that is no object, panics: generated code only writes the paths
// the generator checked.
func (m *Message) Set(path []string, v any) {
	if len(path) < 2 {
		panic("typed: Message.Set: path " + strconv.Quote(joinPath(path)) + " is too short")
	}
	var obj map[string]any
	switch path[0] {
	case "args":
		i, err := strconv.Atoi(path[1])
		if err != nil || i < 0 {
			panic("typed: Message.Set: bad index in " + strconv.Quote(joinPath(path)))
		}
		for len(m.Args) <= i {
			m.Args = append(m.Args, nil)
		}
		if len(path) == 2 {
			m.Args[i] = v
			return
		}
		obj = child(m.Args[i], path)
		m.Args[i] = obj
		path = path[2:]
	case "kwargs":
		if m.Kwargs == nil {
			m.Kwargs = map[string]any{}
		}
		obj, path = m.Kwargs, path[1:]
	default:
		panic("typed: Message.Set: path " + strconv.Quote(joinPath(path)) + " must start at args or kwargs")
	}
	for _, k := range path[:len(path)-1] {
		next := child(obj[k], path)
		obj[k] = next
		obj = next
	}
	obj[path[len(path)-1]] = v
}

// child returns v as an object, a new one when v is nil.
func child(v any, path []string) map[string]any {
	switch x := v.(type) {
	case nil:
		return map[string]any{}
	case map[string]any:
		return x
	}
	panic("typed: Message.Set: " + strconv.Quote(joinPath(path)) + " runs through a value that is no object")
}

func joinPath(path []string) string {
	s := ""
	for i, k := range path {
		if i > 0 {
			s += "."
		}
		s += k
	}
	return s
}

// args returns the arguments of a single-row write: Args, then the
// keyword arguments as client.Kwargs, then extra.
func (m Message) args(extra []any) []any {
	if m.Kwargs == nil && len(extra) == 0 {
		return m.Args
	}
	out := make([]any, 0, len(m.Args)+1+len(extra))
	out = append(out, m.Args...)
	if m.Kwargs != nil {
		out = append(out, client.Kwargs(m.Kwargs))
	}
	return append(out, extra...)
}
