package agent

import (
	"context"
	"testing"

	"github.com/flockgo/ironflock/client"
)

// BenchmarkInvocation measures what Serve adds to a device function's
// invocation — reading the arguments in their convention and validating
// them against the JSON Schema — against the baseline of decoding them
// into the struct, which a hand-written handler does too.
func BenchmarkInvocation(b *testing.B) {
	params := `
        type: object
        properties:
          city: {type: string}
          days: {type: integer, minimum: 1, maximum: 7}
          unit: {type: string, enum: [C, F]}
        required: [city, days]
`
	type args struct {
		City string `json:"city"`
		Days int    `json:"days"`
		Unit string `json:"unit,omitempty"`
	}
	tool := Typed("t", func(ctx context.Context, a args) (int, error) { return a.Days, nil })
	bd, err := newBinding(toolRef{agent: "a", tool: oneTool(b, params)}, tool)
	if err != nil {
		b.Fatal(err)
	}
	kwargs := map[string]any{"city": "Oslo", "days": int64(3), "unit": "C", "device_key": int64(7)}
	b.Run("baseline decode", func(b *testing.B) {
		for b.Loop() {
			var a args
			if err := client.DecodeInto(kwargs, &a); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("serve", func(b *testing.B) {
		ctx := context.Background()
		for b.Loop() {
			obj, err := bd.params.argumentObject(nil, kwargs)
			if err != nil {
				b.Fatal(err)
			}
			if msg := validate(bd.schema, bd.props, obj); msg != "" {
				b.Fatal(msg)
			}
			if _, err := bd.tool.call(ctx, obj); err != nil {
				b.Fatal(err)
			}
		}
	})
}
