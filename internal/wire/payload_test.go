package wire

import "testing"

// TestPayloadElems: keyword arguments bring the arguments with them, even
// empty ones; empty arguments alone are left out.
func TestPayloadElems(t *testing.T) {
	for _, c := range []struct {
		args   []any
		kwargs map[string]any
		want   int
	}{
		{nil, nil, 0},
		{[]any{}, map[string]any{}, 0},
		{[]any{1}, nil, 1},
		{nil, map[string]any{"k": 1}, 2},
		{[]any{1}, map[string]any{"k": 1}, 2},
	} {
		if got := PayloadElems(c.args, c.kwargs); got != c.want {
			t.Errorf("PayloadElems(%v, %v) = %d, want %d", c.args, c.kwargs, got, c.want)
		}
	}
}
