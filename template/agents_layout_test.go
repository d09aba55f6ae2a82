package template

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestToolLayout(t *testing.T) {
	for _, tc := range []struct {
		name      string
		lines     []string // the keys of tool t (line 8), from line 9 on (see tool)
		names     []string
		positions map[string]Position // pointer → where ParameterPosition puts it
	}{
		{
			name: "json schema",
			lines: []string{"description: d", "topic: t", "parameters:", "  type: object", "  properties:",
				"    zeta: {type: string}", "    alpha:", "      type: array", "      items: {type: integer}", "  required: [zeta]"},
			names: []string{"zeta", "alpha"},
			positions: map[string]Position{
				"":                             {12, 9}, // the mapping: its first key
				"/properties/zeta":             {14, 11},
				"/properties/zeta/type":        {14, 18},
				"/properties/alpha":            {15, 11},
				"/properties/alpha/items":      {17, 13},
				"/properties/alpha/items/type": {17, 21},
				"/required/0":                  {18, 20},
				"/properties/nothing/type":     {13, 9}, // the nearest part written: properties
			},
		},
		{
			name: "named form",
			lines: []string{"description: d", "topic: t", "parameters:", "  city: {type: string, required: true}",
				"  days: {type: integer}"},
			names: []string{"city", "days"},
			positions: map[string]Position{
				"":                      {12, 9},
				"/type":                 {12, 9}, // added by the conversion
				"/properties":           {12, 9},
				"/properties/city":      {12, 9},
				"/properties/city/type": {12, 16},
				"/properties/days":      {13, 9},
				"/required":             {12, 9},
			},
		},
		{
			name:      "no parameters",
			lines:     []string{"description: d", "topic: t"},
			positions: map[string]Position{"": {8, 5}, "/properties/x": {8, 5}}, // the tool
		},
		{
			name: "merge key",
			lines: []string{"description: d", "topic: t", "parameters:", "  type: object", "  properties:",
				"    <<: {b: {type: string}}", "    a: {type: string}"},
			names:     []string{"a", "b"},
			positions: map[string]Position{"/properties/a": {15, 11}, "/properties/b": {14, 16}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tpl, _ := mustAgents(t, tool(tc.lines...))
			tl := tpl.Agents["a"].Tools["t"]
			if d := cmp.Diff(tc.names, tl.ParameterNames); d != "" {
				t.Errorf("ParameterNames (-want +got):\n%s", d)
			}
			if tl.Pos != (Position{8, 5}) {
				t.Errorf("Pos = %v", tl.Pos)
			}
			for ptr, want := range tc.positions {
				if got := tl.ParameterPosition(ptr); got != want {
					t.Errorf("ParameterPosition(%q) = %v, want %v", ptr, got, want)
				}
			}
		})
	}
}
