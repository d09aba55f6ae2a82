package realm

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/template"
)

func parse(t *testing.T, src string) *template.DataTemplate {
	t.Helper()
	tpl, _, err := template.ParseData([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func TestDiffTemplates(t *testing.T) {
	old := parse(t, `data:
  tables:
    - tablename: a
      columns:
        - {id: tsp, name: T, dataType: timestamp}
        - {id: x, name: X, dataType: numeric}
        - {id: y, name: Y, dataType: string}
        - {id: k, name: K, dataType: string}
    - tablename: gone
      columns:
        - {id: tsp, name: T, dataType: timestamp}
files:
  namespaces:
    - name: shots
`)
	new := parse(t, `data:
  tables:
    - tablename: a
      columns:
        - {id: tsp, name: T, dataType: timestamp}
        - {id: x, name: X, dataType: string}
        - {id: k, name: K, dataType: string, secret: true}
        - {id: z, name: Z, dataType: boolean}
    - tablename: fresh
      columns:
        - {id: tsp, name: T, dataType: timestamp}
files:
  namespaces:
    - name: photos
`)
	ch := DiffTemplates(old, new)
	want := TemplateChange{Old: old, New: new,
		AddedTables:       []string{"fresh"},
		RemovedTables:     []string{"gone"},
		AddedColumns:      []ColumnChange{{Table: "a", Column: "z", To: "boolean"}},
		RemovedColumns:    []ColumnChange{{Table: "a", Column: "y", From: "string"}},
		RetypedColumns:    []ColumnChange{{Table: "a", Column: "x", From: "numeric", To: "string"}, {Table: "a", Column: "k", From: "string", To: "string secret"}},
		AddedNamespaces:   []string{"photos"},
		RemovedNamespaces: []string{"shots"},
	}
	if diff := cmp.Diff(want, ch); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
	if !ch.Drops() || ch.Empty() {
		t.Error("the change drops data")
	}
	if got := ch.Dropped(); got != "table gone removed, column a.y (string) removed, column a.x retyped from numeric to string, column a.k retyped from string to string secret, file namespace shots removed" {
		t.Errorf("Dropped() = %q", got)
	}
	if got := ch.Added(); got != "table fresh, column a.z (boolean), file namespace photos" {
		t.Errorf("Added() = %q", got)
	}
	if back := DiffTemplates(old, old); !back.Empty() {
		t.Errorf("no change: %+v", back)
	}
	tables := parse(t, "data:\n  tables:\n    - tablename: a\n      columns:\n        - {id: tsp, name: T, dataType: timestamp}\n")
	if none := DiffTemplates(nil, tables); none.Drops() || len(none.AddedTables) != 1 {
		t.Errorf("from nothing: %+v", none)
	}
}
