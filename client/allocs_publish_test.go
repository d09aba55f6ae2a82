//go:build !race

// This file pins what an acknowledged publish allocates in the client's
// process with no hooks and with a counting hook (issue 36: the hooks add
// no allocation to the path of a client without them, nor with a counting
// one), in msgpack and JSON, against the router of allocs_test.go's child
// process.

package client_test

import (
	"context"
	"testing"

	"github.com/flockgo/ironflock/client"
)

// publishAllocs is what one acknowledged publish of allocRow allocates:
// what gorilla/websocket allocates per message read (1); the link writes
// its frames itself (engine/frameout.go), which allocates nothing. No
// hook, a counting hook and trace propagation of an untraced ctx add
// none.
const publishAllocs = 1

func TestPublishAllocations(t *testing.T) {
	r := startAllocRouter(t)
	cases := []struct {
		name string
		opts []client.Option
		hook *countingHook
	}{
		{name: "none"},
		{name: "counting", hook: &countingHook{}},
		{name: "counting+trace", hook: &countingHook{}, opts: []client.Option{client.WithTracePropagation(testPropagator{})}},
	}
	for _, ser := range []client.Serializer{client.MsgPack, client.JSON} {
		for _, tc := range cases {
			t.Run(ser.String()+"/"+tc.name, func(t *testing.T) {
				opts := tc.opts
				if tc.hook != nil {
					*tc.hook = countingHook{}
					opts = append(opts, client.WithHooks(tc.hook))
				}
				c := allocClient(t, r.Caller, ser, opts...)
				ctx := context.Background()
				row := allocRow()
				publish := func() {
					if err := c.Publish(ctx, "com.example.allocs", row); err != nil {
						t.Fatal(err)
					}
				}
				publish()
				n := testing.AllocsPerRun(200, publish)
				if n > publishAllocs {
					t.Errorf("an acknowledged publish allocates %.0f times, want at most %d", n, publishAllocs)
				}
				if tc.hook != nil && tc.hook.n.Load() < 201 {
					t.Errorf("the counting hook counted %d publications, want at least 201", tc.hook.n.Load())
				}
				if st := c.Stats(); st.PendingAcks != 0 || st.MessagesOut < 202 {
					t.Errorf("Stats after 202 publications = %+v", st)
				}
			})
		}
	}
}
