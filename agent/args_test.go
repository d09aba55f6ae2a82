package agent

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// testParams are the parameters of a tool (city, days, filter), filter
// taking an object when first is set.
func testParams(first string) params {
	order := []string{first, "days", "unit"}
	p := params{order: order, declared: map[string]bool{}}
	for _, n := range order {
		p.declared[n] = true
	}
	p.firstObject = first == "filter"
	return p
}

func TestArgumentObject(t *testing.T) {
	city, filter := testParams("city"), testParams("filter")
	for _, tc := range []struct {
		name   string
		p      params
		args   []any
		kwargs map[string]any
		want   map[string]any
		err    string
	}{
		{name: "keyword", p: city, args: []any{}, kwargs: map[string]any{"city": "Oslo", "days": 2, "device_key": 7}, want: map[string]any{"city": "Oslo", "days": 2}},
		{name: "object", p: city, args: []any{map[string]any{"city": "Oslo", "days": 2, "device_key": 7}}, want: map[string]any{"city": "Oslo", "days": 2}},
		{name: "object, device_key as kwarg", p: city, args: []any{map[string]any{"city": "Oslo"}}, kwargs: map[string]any{"device_key": 7}, want: map[string]any{"city": "Oslo"}},
		{name: "positional", p: city, args: []any{"Oslo", 2}, want: map[string]any{"city": "Oslo", "days": 2}},
		{name: "positional null is absent", p: city, args: []any{"Oslo", nil, "C"}, want: map[string]any{"city": "Oslo", "unit": "C"}},
		{name: "positional and keyword", p: city, args: []any{"Oslo"}, kwargs: map[string]any{"days": 3}, want: map[string]any{"city": "Oslo", "days": 3}},
		{name: "nothing", p: city, want: map[string]any{}},
		{name: "empty object", p: city, args: []any{map[string]any{}}, want: map[string]any{}},
		{name: "nil object", p: city, args: []any{map[string]any(nil)}, want: map[string]any{}},
		{name: "object for an object parameter", p: filter, args: []any{map[string]any{"near": "Oslo"}}, want: map[string]any{"filter": map[string]any{"near": "Oslo"}}},
		{name: "argument object with an object parameter", p: filter, args: []any{map[string]any{"filter": map[string]any{"near": "Oslo"}, "days": 1}}, want: map[string]any{"filter": map[string]any{"near": "Oslo"}, "days": 1}},
		{name: "unknown key stays", p: city, args: []any{map[string]any{"town": "Oslo"}}, want: map[string]any{"town": "Oslo"}},
		{name: "too many values", p: city, args: []any{"Oslo", 1, "C", 4}, err: "got 4 positional arguments, but the tool takes 3 (city, days, unit)"},
		{name: "given twice", p: city, args: []any{"Oslo"}, kwargs: map[string]any{"city": "Bergen"}, err: `parameter "city" is given twice, by position and by name`},
		{name: "no parameters", p: params{}, args: []any{1}, err: "got 1 positional arguments, but the tool takes none"},
	} {
		got, err := tc.p.argumentObject(tc.args, tc.kwargs)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		default:
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", tc.name, d)
			}
		}
	}
	// The invocation's payload is not changed.
	kw := map[string]any{"city": "Oslo", "device_key": 7}
	obj := map[string]any{"city": "Oslo", "device_key": 7}
	_, _ = city.argumentObject(nil, kw)
	_, _ = city.argumentObject([]any{obj}, nil)
	if len(kw) != 2 || len(obj) != 2 {
		t.Errorf("payload changed: %v %v", kw, obj)
	}
}
