package main

import (
	"os"
	"regexp"
	"testing"

	"github.com/flockgo/ironflock/template"
)

// TestREADMETemplateIsTheDemos: the README's tour writes rows of the data
// template the README shows (readme_test.go runs it against the fake with
// strict columns); every column it declares is a column of the demo's
// sensordata with the same type, so that the tour's device program runs
// against flockd's demo without a dropped key.
func TestREADMETemplateIsTheDemos(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	tpl, _, err := template.ParseData([]byte(demoTemplate))
	if err != nil {
		t.Fatal(err)
	}
	demo := map[string]string{}
	for _, tab := range tpl.Tables {
		if tab.Name == "sensordata" {
			for _, c := range tab.Columns {
				demo[c.ID] = string(c.Type)
			}
		}
	}
	cols := regexp.MustCompile(`\{id: (\w+), name: [^,]+, dataType: (\w+)\}`).FindAllSubmatch(readme, -1)
	if len(cols) == 0 {
		t.Fatal("README.md shows no data template column")
	}
	for _, c := range cols {
		id, typ := string(c[1]), string(c[2])
		if got, ok := demo[id]; !ok || got != typ {
			t.Errorf("README.md's data template has column %s (%s); the demo's sensordata has %v", id, typ, demo)
		}
	}
}
