package template

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// m returns the smallest valid data template (5 lines) followed by extra.
func m(extra string) string {
	return dedent(minimal) + dedent(extra)
}

// minimal is the smallest valid data template; cases below extend it.
const minimal = `
	data:
	  tables:
	    - tablename: t
	      columns:
	        - {id: tsp, dataType: timestamp}
`

func TestParseDataDocument(t *testing.T) {
	runData(t, []tcase{
		{name: "minimal valid", src: m("")},
		{name: "empty file", src: "", want: []want{E(1, 1, "", "empty template; a data template is a mapping with the key data")}},
		{name: "comments only", src: "# nothing yet\n", want: []want{E(1, 1, "", "empty template")}},
		{name: "explicit null document", src: "~\n", want: []want{E(1, 1, "", "empty template")}},
		{name: "root is a list", src: "- data\n", want: []want{E(1, 1, "", "must be a mapping with the keys data, consumes and files, got a list")}},
		{name: "root is a scalar", src: "hello\n", want: []want{E(1, 1, "", `got the string "hello"`)}},
		{name: "syntax error", src: "data:\n  tables: [\n", want: []want{E(2, 0, "", "invalid YAML: did not find expected node content")}},
		{name: "tab indentation", src: "data:\n\ttables: []\n", want: []want{E(2, 0, "", "invalid YAML: found character that cannot start any token")}},
		{name: "unquoted wildcard", src: `
			data: {}
			consumes:
			  - app: *
		`, want: []want{E(3, 10, "", `an unquoted * starts an alias in YAML: write "*" in quotes`)}},
		{name: "quoted wildcard", src: m("consumes:\n  - app: \"*\"\n")},
		{name: "two documents", src: m("---\ndata: {}\n"), want: []want{E(6, 1, "", "a template holds exactly one YAML document")}},
		{name: "alias cycle", src: "data: &d {tables: [*d]}\n", want: []want{E(1, 20, "", "YAML alias *d refers to a node that contains it")}},
		{name: "unknown anchor", src: "data: *nope\n", want: []want{E(0, 0, "", "invalid YAML: unknown anchor 'nope' referenced")}},
		{name: "custom tag", src: "data: !table {}\n", want: []want{
			E(1, 7, "", `unknown YAML tag "!table"`),
			W(1, 7, "data", "declares no tables"),
		}},
		{name: "explicit standard tag", src: "data: !!map {tables: !!seq []}\n", want: []want{W(1, 7, "data", "declares no tables or transforms")}},
		{name: "duplicate key", src: m("data: {}\n"), want: []want{E(6, 1, "data", `duplicate key "data" (first at line 1)`)}},
		{name: "non-string key", src: "[a]: 1\ndata: {}\n", want: []want{
			E(1, 1, "", "mapping keys must be plain strings, got a list"),
			W(2, 7, "data", "declares no tables"),
		}},
		{name: "unknown root key", src: m("version: 2\n"), want: []want{W(6, 1, "version", `unknown key "version" is ignored by the platform; allowed: data, consumes, files`)}},
		{name: "misspelt root key", src: "Data: {}\n", want: []want{
			W(1, 1, "Data", `unknown key "Data" is ignored by the platform; did you mean "data"?`),
			E(1, 1, "data", "data is required; it holds tables and transforms"),
		}},
		{name: "data missing", src: "consumes: []\n", want: []want{E(1, 1, "data", "data is required")}},
		{name: "data null", src: "data:\n", want: []want{E(1, 1, "data", "data is required")}},
		{name: "data is a list", src: "data: []\n", want: []want{E(1, 7, "data", "must be a mapping with the keys tables and transforms, got a list")}},
		{name: "data empty", src: "data: {}\n", want: []want{W(1, 7, "data", "declares no tables or transforms; the app's data backend stays empty")}},
		{name: "data unknown key", src: "data:\n  tables: []\n  views: []\n", want: []want{
			W(2, 3, "data", "declares no tables"),
			W(3, 3, "data.views", "allowed: tables, transforms"),
		}},
		{name: "tables not a list", src: "data:\n  tables: {t: 1}\n", want: []want{E(2, 11, "data.tables", "must be a list of tables, got a mapping")}},
		{name: "transforms not a list", src: "data:\n  transforms: x\n", want: []want{E(2, 15, "data.transforms", `must be a list of transforms, got the string "x"`)}},
		{name: "table not a mapping", src: "data:\n  tables: [sensordata]\n", want: []want{E(2, 12, "data.tables[0]", "must be a table mapping with tablename and columns")}},
		{name: "anchors and merge keys", src: `
			data:
			  tables:
			    - tablename: a
			      private: true
			      columns: &cols
			        - &tsp {id: tsp, dataType: timestamp}
			        - {<<: *tsp, id: value, dataType: numeric}
			    - tablename: b
			      columns: *cols
		`},
		{name: "merge of a list of mappings", src: `
			base: &base {tablename: a}
			more: &more {columns: [{id: tsp, dataType: timestamp}], tablename: ignored}
			data:
			  tables:
			    - <<: [*base, *more]
		`, want: []want{
			W(1, 1, "base", `unknown key "base"`),
			W(2, 1, "more", `unknown key "more"`),
		}},
		{name: "merge of a scalar", src: "data:\n  <<: 1\n", want: []want{
			W(2, 3, "data", "declares no tables"),
			E(2, 7, "data", "a merge key (<<) must name a mapping or a list of mappings, got the number 1"),
		}},
	})
}

func TestParseDataHardening(t *testing.T) {
	var bomb strings.Builder
	bomb.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 7; i++ {
		fmt.Fprintf(&bomb, "a%d: &a%d [*a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d, *a%[3]d]\n", i, i, i-1)
	}
	long := strings.Repeat("x", 60)
	runData(t, []tcase{
		{name: "alias expansion", src: bomb.String(), want: []want{E(1, 1, "", "document too large once its aliases are expanded (more than 200000 nodes)")}},
		{name: "deep nesting", src: strings.Repeat("[", 20000) + strings.Repeat("]", 20000), want: []want{E(0, 0, "", "invalid YAML: exceeded max depth of 10000")}},
		{name: "null table", src: "data:\n  tables: [~]\n", want: []want{E(2, 12, "data.tables[0]", "must be a table mapping with tablename and columns, got null")}},
		{name: "boolean name", src: named("true"), want: []want{
			W(3, 18, "data.tables[0].tablename", "the boolean true is read as text"),
			E(3, 18, "data.tables[0].tablename", `"true" is a reserved SQL word`),
		}},
		{name: "long value in a message", src: "data: " + long + "\n", want: []want{E(1, 7, "data", `got the string "`+long[:40]+`…"`)}},
	})
}

func TestParseDataMergeKeysOrder(t *testing.T) {
	tpl := mustData(t, `
		data:
		  tables:
		    - <<: {private: true, description: merged}
		      description: own
		      tablename: t
		      columns: [{id: tsp, dataType: timestamp}]
	`)
	got := tpl.Tables[0]
	if !got.Private || got.Description != "own" {
		t.Errorf("merge: got private %v description %q; want true and the explicit \"own\"", got.Private, got.Description)
	}
}

func TestParseDataConsumes(t *testing.T) {
	runData(t, []tcase{
		{name: "valid", src: m(`
			consumes:
			  - app: weather
			    reason: outside temperature
			  - app: "*"
			  - app: My.App_v2-beta
		`)},
		{name: "not a list", src: m("consumes: {app: weather}\n"), want: []want{E(6, 11, "consumes", "must be a list of entries like {app: weather")}},
		{name: "entry not a mapping", src: m("consumes: [weather]\n"), want: []want{E(6, 12, "consumes[0]", `must be a mapping with the keys app and reason (write app: "*" for every app)`)}},
		{name: "app missing", src: m("consumes:\n  - reason: x\n"), want: []want{E(7, 5, "consumes[0].app", `app is required; name the provider app, or "*" in quotes`)}},
		{name: "invalid app name", src: m("consumes:\n  - app: weather station\n"), want: []want{E(7, 10, "consumes[0].app", `invalid app name "weather station"; allowed: "*" or letters, digits, ".", "_" and "-"`)}},
		{name: "star inside a name", src: m("consumes:\n  - app: \"w*\"\n"), want: []want{E(7, 10, "consumes[0].app", `invalid app name "w*"`)}},
		{name: "duplicate, case-insensitive", src: m("consumes:\n  - app: Weather\n  - app: weather\n"), want: []want{E(8, 10, "consumes[1].app", `app "weather" is already consumed (line 7); each app may appear once, compared case-insensitively`)}},
		{name: "duplicate wildcard", src: m("consumes:\n  - app: \"*\"\n  - app: '*'\n"), want: []want{E(8, 10, "consumes[1].app", `app "*" is already consumed`)}},
		{name: "numeric app name", src: m("consumes:\n  - app: 42\n"), want: []want{W(7, 10, "consumes[0].app", "the number 42 is read as text; quote it")}},
		{name: "unknown key", src: m("consumes:\n  - app: weather\n    tables: [x]\n"), want: []want{W(8, 5, "consumes[0].tables", "allowed: app, reason")}},
	})
	tpl := mustData(t, m("consumes:\n  - {app: weather, reason: r}\n  - app: \"*\"\n"))
	if d := cmp.Diff([]Consume{{App: "weather", Reason: "r"}, {App: "*"}}, tpl.Consumes); d != "" {
		t.Error(d)
	}
}

func TestDataTemplateLookups(t *testing.T) {
	tpl := mustData(t, `
		data:
		  tables:
		    - tablename: a
		      columns: [{id: tsp, dataType: timestamp}, {id: key, dataType: string, secret: true}]
		    - tablename: b
		      columns: [{id: tsp, dataType: timestamp}]
		  transforms:
		    - tablename: v
		      sql: SELECT 1
	`)
	if d := cmp.Diff([]string{"a", "b", "error-logs"}, tpl.TableNames()); d != "" {
		t.Error(d)
	}
	if tb, ok := tpl.Table("b"); !ok || tb.Name != "b" || tb.HasSecret() {
		t.Errorf("Table(b) = %v, %v", tb, ok)
	}
	if tb, ok := tpl.Table("a"); !ok || !tb.HasSecret() {
		t.Errorf("Table(a) = %v, %v; want a secret column", tb, ok)
	}
	if _, ok := tpl.Table("v"); ok {
		t.Error("Table(v) found a transform")
	}
	if tr, ok := tpl.Transform("v"); !ok || tr.SQL != "SELECT 1" {
		t.Errorf("Transform(v) = %v, %v", tr, ok)
	}
	if _, ok := tpl.Transform("a"); ok {
		t.Error("Transform(a) found a table")
	}
	if el, ok := tpl.Table(ErrorLogsName); !ok || !el.Private {
		t.Errorf("Table(error-logs) = %v, %v", el, ok)
	}
	var nilTpl *DataTemplate
	if _, ok := nilTpl.Table("a"); ok {
		t.Error("nil template has table a")
	}
	if _, ok := nilTpl.Table(ErrorLogsName); !ok {
		t.Error("nil template lacks error-logs")
	}
	if _, ok := nilTpl.Transform("v"); ok {
		t.Error("nil template has transform v")
	}
	if d := cmp.Diff([]string{"error-logs"}, nilTpl.TableNames()); d != "" {
		t.Error(d)
	}
}

func TestErrorLogsTable(t *testing.T) {
	el := ErrorLogsTable()
	type col struct {
		ID   string
		Type DataType
	}
	var got []col
	for _, c := range el.Columns {
		got = append(got, col{c.ID, c.Type})
	}
	for _, c := range el.ImplicitColumns() {
		got = append(got, col{c.ID, c.Type})
	}
	wantCols := []col{
		{"tsp", TypeTimestamp}, {"msg", TypeString}, {"user_message", TypeString}, {"source", TypeString},
		{"level", TypeString}, {"device_key", TypeBigint}, {"authid", TypeString}, {"id", TypeBigint},
	}
	if d := cmp.Diff(wantCols, got); d != "" {
		t.Error(d)
	}
	if el.Name != "error-logs" || !el.Private || el.HasSecret() {
		t.Errorf("ErrorLogsTable() = %+v", el)
	}
	normal := Table{Name: "t"}
	if n := len(normal.ImplicitColumns()); n != 2 {
		t.Errorf("a normal table has %d implicit columns; want device_key and authid", n)
	}
}
