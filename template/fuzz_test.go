package template

import (
	"errors"
	"os"
	"testing"
)

// checkInvariants holds for every input: findings are positioned and
// worded, an error comes with a nil template and exactly when an error
// finding exists.
func checkInvariants(t *testing.T, ok bool, fs []Finding, err error) {
	var terr *Error
	switch {
	case hasErrors(fs) != (err != nil):
		t.Fatalf("error findings %v but err %v", hasErrors(fs), err)
	case err != nil && (!errors.As(err, &terr) || ok):
		t.Fatalf("err %v (template %v); want *Error and no template", err, ok)
	case err == nil && !ok:
		t.Fatal("no error and no template")
	}
	for _, f := range fs {
		if f.Message == "" || f.File == "" || f.Line < 0 || f.Column < 0 {
			t.Fatalf("bad finding %#v", f)
		}
		_ = f.String()
	}
	if err != nil {
		_ = err.Error()
	}
}

func addSeeds(f *testing.F, file string, extra ...string) {
	if src, err := os.ReadFile(file); err == nil {
		f.Add(src)
	}
	for _, s := range extra {
		f.Add([]byte(s))
	}
}

func FuzzParseData(f *testing.F) {
	addSeeds(f, "testdata/data-template.yml",
		"", "data: {}\n", dedent(minimal), "a: &x [*x]\n", "app: *\n", "data:\n  <<: {tables: []}\n",
		"data: {tables: [{tablename: t, columns: [{id: tsp, dataType: timestamp, path: 'args[0][\"a\"]'}], maintainLatestFlagFor: [x]}]}\n",
		"files: {namespaces: [{name: ab, linkMaxTtl: 99999999999999999999h, contentTypes: []}]}\n",
		"data: {transforms: [{tablename: v, sql: x, schedule: '*/7 1-2,5 ? JAN-dec mon/2'}]}\n",
	)
	f.Fuzz(func(t *testing.T, src []byte) {
		tpl, fs, err := ParseData(src)
		checkInvariants(t, tpl != nil, fs, err)
		if tpl != nil {
			_ = tpl.NamespaceNames()
			for _, n := range tpl.TableNames() {
				if _, ok := tpl.Table(n); !ok {
					t.Fatalf("table %q listed but not found", n)
				}
			}
		}
	})
}

func FuzzParseAgents(f *testing.F) {
	addSeeds(f, "testdata/ai-template.yml",
		"", "{}\n", ag("", ""), tool("description: d", "delegate: b"),
		params("type: object", "properties: {p: {$ref: '#/$defs/p'}}", "$defs: {p: {type: string}}"),
		params("sensor: {type: string, required: true}"),
		params("type: object", "properties: {p: {type: string, pattern: '('}}", "allOf: [1]"),
	)
	f.Fuzz(func(t *testing.T, src []byte) {
		tpl, fs, err := ParseAgents(src)
		checkInvariants(t, tpl != nil, fs, err)
		if tpl != nil {
			if tpl.MainAgent() == nil {
				t.Fatal("valid template without main agent")
			}
			for _, a := range tpl.Agents {
				for _, tl := range a.Tools {
					if (tl.Topic == "") == (tl.Delegate == "") || tl.Parameters["type"] != "object" {
						t.Fatalf("tool %+v", tl)
					}
				}
			}
		}
	})
}
