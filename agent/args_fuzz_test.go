package agent

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzArgumentObject feeds argument objects (JSON) to the reading of
// arguments in the three conventions: it never panics, and an object
// whose keys are parameters reads the same in each.
func FuzzArgumentObject(f *testing.F) {
	for _, seed := range []string{
		`{"city":"Oslo","days":2}`, `{"city":null,"unit":"C"}`, `{}`, `{"device_key":7,"days":1.5}`,
		`{"city":{"nested":[1,2]}}`, `{"other":1}`, `[1,2]`, `"text"`, `null`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, objectFirst bool) {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			return
		}
		first := "city"
		if objectFirst {
			first = "filter"
		}
		p := testParams(first)
		// Whatever the payload, reading it must not panic.
		_, _ = p.argumentObject([]any{v}, nil)
		_, _ = p.argumentObject([]any{v, v}, map[string]any{"days": v})
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		_, _ = p.argumentObject(nil, obj)
		want := map[string]any{}
		var positional []any
		for i, name := range p.order {
			if val, ok := obj[name]; ok && val != nil {
				want[name] = val
				for len(positional) < i {
					positional = append(positional, nil)
				}
				positional = append(positional, val)
			}
		}
		if len(want) != len(obj) {
			return // keys that are no parameter cannot travel by position
		}
		kw, err := p.argumentObject([]any{}, obj)
		if err != nil {
			t.Fatalf("keyword: %v", err)
		}
		single, err := p.argumentObject([]any{obj}, nil)
		if err != nil {
			t.Fatalf("object: %v", err)
		}
		got := map[string]map[string]any{"keyword": kw, "object": single}
		// One positional value that is an object reads as the argument
		// object (rule 3): the one ambiguity of the conventions.
		if one, isObj := oneObject(positional); !isObj || (p.firstObject && !p.allDeclared(one)) {
			pos, err := p.argumentObject(positional, nil)
			if err != nil {
				t.Fatalf("positional %v: %v", positional, err)
			}
			got["positional"] = pos
		}
		for name, got := range got {
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%s convention of %s (-want +got):\n%s", name, raw, d)
			}
		}
	})
}

// oneObject returns the single value of vals when it is an object.
func oneObject(vals []any) (map[string]any, bool) {
	if len(vals) != 1 {
		return nil, false
	}
	m, ok := vals[0].(map[string]any)
	return m, ok
}
