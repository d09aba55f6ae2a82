package flockgen

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const checkTemplate = `data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temperature, dataType: numeric}
        - {id: label, dataType: string}
    - tablename: alarms
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: code, dataType: bigint}
`

func TestCheck(t *testing.T) {
	dir := writeApp(t, checkTemplate, "")
	cfg := Config{Dir: dir, Package: "app"}
	res, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if changes, err := Check(cfg, res.Code); err != nil || changes != nil {
		t.Fatalf("fresh: Check = %q, %v", changes, err)
	}
	for _, tc := range []struct {
		name     string
		old, new string
		want     []string
	}{
		{"type", "{id: temperature, dataType: numeric}", "{id: temperature, dataType: bigint}",
			[]string{"table readings column temperature: changed (numeric → bigint)"}},
		{"added column", "{id: label, dataType: string}", "{id: label, dataType: string}\n        - {id: unit, dataType: string, path: kwargs.UNIT}",
			[]string{"table readings column unit: added (string at kwargs.UNIT)"}},
		{"removed table", "    - tablename: alarms\n      columns:\n        - {id: tsp, dataType: timestamp}\n        - {id: code, dataType: bigint}\n", "",
			[]string{"table alarms: removed (table)"}},
	} {
		dir := writeApp(t, strings.Replace(checkTemplate, tc.old, tc.new, 1), "")
		changes, err := Check(Config{Dir: dir, Package: "app"}, res.Code)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(tc.want, changes); d != "" {
			t.Errorf("%s: changes (-want +got):\n%s", tc.name, d)
		}
	}
	// An edited file whose templates did not change.
	edited := strings.Replace(string(res.Code), "func NewAlarms", "// A hand edit.\nfunc NewAlarms", 1)
	changes, err := Check(cfg, []byte(edited))
	if err != nil || len(changes) != 1 || !strings.Contains(changes[0], "the templates are unchanged but the code differs from line") {
		t.Errorf("edited: Check = %q, %v", changes, err)
	}
	// A file flockgen did not write.
	changes, err = Check(cfg, []byte("package app\n"))
	if err != nil || len(changes) != 1 || !strings.Contains(changes[0], "no flockgen schema digest") {
		t.Errorf("foreign: Check = %q, %v", changes, err)
	}
}

func TestDiffDigest(t *testing.T) {
	old := []string{"table a: table", "table a column x: string", "table b: table", "table b column y: numeric", "namespace n: namespace"}
	new := []string{"table a: table", "table a column x: bigint", "table c: table", "table c column z: json", "namespace n: namespace, \"files\""}
	want := []string{
		"table b: removed (table)",
		"table a column x: changed (string → bigint)",
		"table c: added (table)",
		"namespace n: changed (namespace → namespace, \"files\")",
	}
	if d := cmp.Diff(want, diffDigest(old, new)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
