package agents

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPayload(t *testing.T) {
	order := []string{"a", "b", "c"}
	args := map[string]any{"b": 2, "a": 1, "device_key": int64(7), "extra": true}
	for _, tc := range []struct {
		conv   Convention
		keep   bool
		args   map[string]any
		wantA  []any
		wantKw map[string]any
	}{
		{Keyword, false, args, []any{}, map[string]any{"a": 1, "b": 2, "extra": true}},
		{Keyword, true, args, []any{}, map[string]any{"a": 1, "b": 2, "extra": true, "device_key": int64(7)}},
		{Object, false, args, []any{map[string]any{"a": 1, "b": 2, "extra": true}}, nil},
		{Object, true, args, []any{map[string]any{"a": 1, "b": 2, "extra": true, "device_key": int64(7)}}, nil},
		{Positional, true, args, []any{1, 2}, nil}, // device_key and unknown keys have no place
		{Positional, false, map[string]any{"c": 3}, []any{nil, nil, 3}, nil},
		{Positional, false, map[string]any{}, []any{}, nil},
	} {
		a, kw := payload(tc.conv, order, tc.args, tc.keep)
		if d := cmp.Diff(tc.wantA, a); d != "" {
			t.Errorf("%v keep=%v: args (-want +got):\n%s", tc.conv, tc.keep, d)
		}
		if d := cmp.Diff(tc.wantKw, kw); d != "" {
			t.Errorf("%v keep=%v: kwargs (-want +got):\n%s", tc.conv, tc.keep, d)
		}
	}
}

func TestAnswerAndErrorText(t *testing.T) {
	for _, tc := range []struct {
		args   []any
		kwargs map[string]any
		want   any
		text   string
	}{
		{nil, nil, nil, "uri"},
		{[]any{"x"}, nil, "x", "x"},
		{[]any{1, 2}, nil, []any{1, 2}, "[1,2]"},
		{nil, map[string]any{"k": 1}, map[string]any{"k": 1}, `{"k":1}`},
		{[]any{3}, map[string]any{"k": 1}, map[string]any{"args": []any{3}, "kwargs": map[string]any{"k": 1}}, `{"args":[3],"kwargs":{"k":1}}`},
	} {
		if d := cmp.Diff(tc.want, answer(tc.args, tc.kwargs)); d != "" {
			t.Errorf("answer(%v, %v) (-want +got):\n%s", tc.args, tc.kwargs, d)
		}
		if got := errorText(tc.args, tc.kwargs, "uri"); got != tc.text {
			t.Errorf("errorText(%v, %v) = %q, want %q", tc.args, tc.kwargs, got, tc.text)
		}
	}
}

func TestJSONObject(t *testing.T) {
	got, err := jsonObject(map[string]any{"i": 3, "f": 2.5, "big": uint64(1 << 60), "l": []int{1}, "s": struct {
		X int `json:"x"`
	}{4}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"i": int64(3), "f": 2.5, "big": int64(1 << 60), "l": []any{int64(1)}, "s": map[string]any{"x": int64(4)}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got, err := jsonObject(nil); err != nil || got == nil || len(got) != 0 {
		t.Errorf("nil: %v %v", got, err)
	}
}

func TestRecordLimit(t *testing.T) {
	rt := New(Config{RecordLimit: 3})
	for i := range 5 {
		rt.remember(Call{DeviceKey: i})
	}
	var keys []int
	for _, c := range rt.Calls() {
		keys = append(keys, c.DeviceKey)
	}
	if d := cmp.Diff([]int{2, 3, 4}, keys); d != "" {
		t.Errorf("kept (-want +got):\n%s", d)
	}
	rt.ClearCalls()
	if len(rt.Calls()) != 0 {
		t.Error("ClearCalls kept calls")
	}
	if _, ok := ParseConvention("object"); !ok || Convention(9).String() != "Convention(9)" {
		t.Error("conventions")
	}
}
