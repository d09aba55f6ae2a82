// This file renders a table or transform: its row type, its columns, the
// types of its queries, its handle and the code that writes and reads its
// rows without reflection.

package flockgen

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/template"
)

// renderTable writes everything of one table or transform.
func (g *gen) renderTable(w writer, t *table) {
	r := t.rowType()
	w.p("")
	text := fmt.Sprintf("%s is a row of the %s", r, t.what())
	if d := oneLine(t.desc); d != "" {
		text += ": " + d
	}
	w.doc("", text+".")
	w.p("//")
	switch {
	case t.kind == ownTable:
		w.doc("", "A nil field is NULL, and a write leaves it out (on a table with an entity key the entity's latest value then stays). The json tags are the shape reads return, flat by column id; the handle writes each column where the data template's path says.")
	default:
		w.doc("", "A nil field is NULL. The json tags are the shape reads return, flat by column id.")
	}
	w.p("type %s struct {", r)
	for _, c := range t.cols {
		w.doc("\t", fieldDoc(t, c))
		w.p("\t%s %s `json:\"%s\"`", c.field, c.goType(), c.id+tagOption(c))
	}
	w.p("}")

	w.p("")
	w.doc("", fmt.Sprintf("%s holds the columns of the %s, for filters (%s), projections, series metrics and groups.", t.base, t.what(), exampleFilter(t)))
	w.p("var %s = struct {", t.base)
	for _, c := range t.cols {
		typ, _ := c.columnType(r)
		w.p("\t%s %s", c.field, typ)
	}
	w.p("}{")
	for _, c := range t.cols {
		_, ctor := c.columnType(r)
		w.p("\t%s: %s(%q),", c.field, ctor, c.id)
	}
	w.p("}")

	w.p("")
	w.p("// %s selects rows of the %s.", t.queryType(), t.what())
	w.p("type %s = typed.Query[%s]", t.queryType(), r)
	w.p("")
	w.p("// %s is a condition on rows of the %s.", t.filterType(), t.what())
	w.p("type %s = typed.Filter[%s]", t.filterType(), r)
	w.p("")
	w.p("// %s is a new row of the %s.", t.eventType(), t.what())
	w.p("type %s = typed.Event[%s]", t.eventType(), r)
	if !t.kind.transform() {
		w.p("")
		w.p("// %s selects a down-sampled series of the %s.", t.seriesType(), t.what())
		w.p("type %s = typed.SeriesQuery[%s]", t.seriesType(), r)
	}
	if len(t.entity) > 0 {
		w.p("")
		w.doc("", fmt.Sprintf("%s is the latest marker of the %s: the newest row per %s.", t.latestFunc(), t.what(), strings.Join(t.entity, ", ")))
		w.p("func %s() %s { return typed.Latest[%s]() }", t.latestFunc(), t.filterType(), r)
	}
	g.renderHandle(w, t)
	g.renderSchema(w, t)
	if t.kind == ownTable {
		g.renderEncode(w, t)
	}
	g.renderDecode(w, t)
}

// fieldDoc is the comment of a column's field.
func fieldDoc(t *table, c *column) string {
	if c.implicit {
		switch c.id {
		case "device_key":
			return c.field + " is the device that wrote the row (-1 when unknown); set by the platform."
		default:
			return c.field + " is the authid of the session that wrote the row (the device serial); set by the platform."
		}
	}
	kind := string(c.typ)
	if c.secret {
		kind = "secret " + kind
	}
	if label := oneLine(c.name); label != "" && label != c.id {
		kind = strconv.Quote(label) + ", " + kind
	}
	s := fmt.Sprintf("%s is the column %s (%s)", c.field, c.id, kind)
	if d := oneLine(c.desc); d != "" {
		s += ": " + d
	}
	s += "."
	if t.kind == ownTable {
		switch {
		case c.readOnly != "":
			s += " Not written: " + c.readOnly + "."
		case c.path != template.DefaultPath(c.id):
			s += " Written at " + c.path + "."
		}
	}
	if c.secret && t.kind == ownTable {
		s += " Reads show it as secrets.Keep() (the platform's placeholder) but for Reveal; secrets.Keep() leaves it out of a write."
	}
	return s
}

// tagOption is the json tag option of a column's field.
func tagOption(c *column) string {
	switch {
	case c.secret || c.implicit:
		return ",omitzero"
	case c.required:
		return ""
	}
	return ",omitempty"
}

// exampleFilter shows a filter of the table's first filterable column.
func exampleFilter(t *table) string {
	for _, c := range t.cols {
		if c.secret || c.implicit || c.id == "tsp" {
			continue
		}
		switch c.typ {
		case template.TypeNumeric:
			return t.base + "." + c.field + ".Gt(3)"
		case template.TypeBigint:
			return t.base + "." + c.field + ".Ge(1)"
		case template.TypeString:
			return t.base + "." + c.field + `.Eq("…")`
		case template.TypeBoolean:
			return t.base + "." + c.field + ".Eq(true)"
		}
	}
	return t.base + ".Tsp.Gt(t)"
}

// renderHandle writes the handle type of an own table or transform.
func (g *gen) renderHandle(w writer, t *table) {
	if t.kind.shared() {
		return
	}
	h, r := t.handleType(), t.rowType()
	w.p("")
	if t.kind == ownView {
		w.doc("", fmt.Sprintf("%s is the read-only handle on the %s: history and realtime rows. %s makes one.", h, t.what(), t.ctorFunc()))
		w.p("type %s struct{ typed.View[%s] }", h, r)
		w.p("")
		w.p("// %s returns the handle on the %s over c.", t.ctorFunc(), t.what())
		w.p("func %s(c *client.Client) %s { return %s{typed.NewView(c, %s)} }", t.ctorFunc(), h, h, t.schemaVar())
		return
	}
	text := fmt.Sprintf("%s is the typed handle on the %s: Publish, Append, their bulk forms, History, Series and Subscribe", h, t.what())
	if t.secret {
		text += ", Reveal and Verify of its secret columns"
	}
	w.doc("", text+". "+t.ctorFunc()+" makes one.")
	w.p("type %s struct{ typed.Table[%s] }", h, r)
	w.p("")
	w.p("// %s returns the handle on the %s over c.", t.ctorFunc(), t.what())
	w.p("func %s(c *client.Client) %s { return %s{typed.NewTable(c, %s)} }", t.ctorFunc(), h, h, t.schemaVar())
	if t.secret {
		w.p("")
		w.doc("", "Reveal reads rows with their secret columns in plaintext, newest first (secrets.Client.Reveal; Limit 1–100).")
		w.p("func (t %s) Reveal(ctx context.Context, q *%s) ([]%s, error) {", h, t.queryType(), r)
		w.p("return typed.Reveal(ctx, t.Table, q)")
		w.p("}")
	}
}

// renderSchema writes the table's typed.Schema.
func (g *gen) renderSchema(w writer, t *table) {
	w.p("")
	w.p("var %s = &typed.Schema[%s]{", t.schemaVar(), t.rowType())
	w.p("Table: %q,", t.id)
	if t.kind == ownTable {
		w.p("Encode: %s,", t.encodeFunc())
	}
	w.p("Decode: %s,", t.decodeFunc())
	if t.noBulk != "" {
		w.p("NoBulk: %q,", t.noBulk)
	}
	w.p("}")
}

// renderEncode writes the function that writes a row as its message.
func (g *gen) renderEncode(w writer, t *table) {
	if len(t.paths) > 0 {
		w.p("")
		w.p("// %s are the paths of the columns not written to the row object.", t.pathsVar())
		w.p("var %s = [][]string{", t.pathsVar())
		for _, p := range t.paths {
			w.p("{%s},", quoteList(p))
		}
		w.p("}")
	}
	flat := 0
	for _, c := range t.cols {
		if c.write == writeFlat {
			flat++
		}
	}
	w.p("")
	w.p("func %s(r %s) (typed.Message, error) {", t.encodeFunc(), t.rowType())
	w.p("var m typed.Message")
	if flat > 0 {
		w.p("row := m.Row(%d)", flat)
	}
	for _, c := range t.cols {
		if c.write == writeNone {
			continue
		}
		put := func(v string) string {
			if c.write == writeFlat {
				return fmt.Sprintf("row[%q] = %s", c.flatKey, v)
			}
			return fmt.Sprintf("m.Set(%s[%d], %s)", t.pathsVar(), c.pathIndex, v)
		}
		f := "r." + c.field
		switch {
		case c.secret:
			w.p("if v, ok := typed.EncodeSecret(%s); ok {", f)
			w.p("%s", put("v"))
			w.p("}")
		case c.required && c.id == "tsp":
			w.p("tsp, err := typed.EncodeTsp(%s)", f)
			w.p("if err != nil { return m, err }")
			w.p("%s", put("tsp"))
		case c.typ == template.TypeJSON, c.typ == template.TypeTimestamp:
			call := fmt.Sprintf("typed.EncodeJSON(%s, %q)", f, c.id)
			if c.typ == template.TypeTimestamp {
				call = fmt.Sprintf("client.EncodeTime(*%s, %q)", f, c.id)
			}
			w.p("if %s != nil {", f)
			w.p("v, err := %s", call)
			w.p("if err != nil { return m, err }")
			w.p("%s", put("v"))
			w.p("}")
		default:
			w.p("if %s != nil {", f)
			w.p("%s", put("*"+f))
			w.p("}")
		}
	}
	w.p("return m, nil")
	w.p("}")
}

// renderDecode writes the function that reads rows, and the type holding
// the values its pointer fields point to (one allocation per call, not
// one per value).
func (g *gen) renderDecode(w writer, t *table) {
	nulls := t.nullable()
	if len(nulls) > 0 {
		w.p("")
		w.p("// %s holds the values of a %s's pointer fields.", t.nullsType(), t.rowType())
		w.p("type %s struct {", t.nullsType())
		for i, c := range nulls {
			w.p("v%d %s", i, scalarType(c.typ))
		}
		w.p("}")
	}
	w.p("")
	w.p("func %s(rows []client.Row) ([]%s, error) {", t.decodeFunc(), t.rowType())
	w.p("out := make([]%s, len(rows))", t.rowType())
	if len(t.cols) == 0 {
		w.p("return out, nil")
		w.p("}")
		return
	}
	if len(nulls) > 0 {
		w.p("vals := make([]%s, len(rows))", t.nullsType())
	}
	w.p("for i, row := range rows {")
	w.p("r := &out[i]")
	if len(nulls) > 0 {
		w.p("n := &vals[i]")
	}
	w.p("var err error")
	idx := map[*column]int{}
	for i, c := range nulls {
		idx[c] = i
	}
	fail := `if err != nil { return nil, fmt.Errorf("row %d: %w", i, err) }`
	for _, c := range t.cols {
		f := "r." + c.field
		switch {
		case c.secret:
			w.p("%s, err = typed.DecodeSecret(row[%q], %q)", f, c.id, c.id)
			w.p("%s", fail)
		case c.typ == template.TypeJSON:
			w.p("%s, err = typed.DecodeJSON(row[%q], %q)", f, c.id, c.id)
			w.p("%s", fail)
		case c.required:
			w.p("%s, err = client.%s(row[%q], %q)", f, decoder(c.typ), c.id, c.id)
			w.p("%s", fail)
		default:
			v := fmt.Sprintf("n.v%d", idx[c])
			w.p("if x := row[%q]; x != nil {", c.id)
			w.p("%s, err = client.%s(x, %q)", v, decoder(c.typ), c.id)
			w.p("%s", fail)
			w.p("%s = &%s", f, v)
			w.p("}")
		}
	}
	w.p("}")
	w.p("return out, nil")
	w.p("}")
}

// decoder names the client function decoding a data type.
func decoder(t template.DataType) string {
	switch t {
	case template.TypeNumeric:
		return "DecodeFloat64"
	case template.TypeBigint:
		return "DecodeInt64"
	case template.TypeTimestamp:
		return "DecodeTime"
	case template.TypeBoolean:
		return "DecodeBool"
	}
	return "DecodeString"
}

// quoteList renders strings as the elements of a Go list literal.
func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}
