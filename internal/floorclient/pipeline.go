// This file holds Pipeline: one goroutine keeping several requests in
// flight.

package floorclient

import (
	"context"
	"fmt"
)

// Pipeline keeps up to depth requests of t in flight from the calling
// goroutine: it asks take before writing each request (false: write no
// more), calls done after each successful reply, and writes the next
// request as each reply arrives. It returns once every request written has
// its reply, with the number of successful replies. Do not use it on a Conn
// with a reader. To bound the waits, Watch ctx.
func (c *Conn) Pipeline(ctx context.Context, t *Template, depth int, take func() bool, done func()) (int, error) {
	if depth < 1 {
		return 0, fmt.Errorf("floorclient: pipeline depth %d", depth)
	}
	inFlight := map[uint64]struct{}{}
	send := func() error {
		id := c.nextID.Add(1)
		inFlight[id] = struct{}{}
		return c.ws.WriteMessage(t.frame(), t.withID(id))
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	for range depth {
		if !take() {
			break
		}
		if err := send(); err != nil {
			return 0, c.closedErr(ctx, err)
		}
	}
	ok := 0
	for len(inFlight) > 0 {
		code, id, err := c.readOne()
		if err != nil {
			return ok, c.closedErr(ctx, err)
		}
		if _, mine := inFlight[id]; !mine {
			continue
		}
		delete(inFlight, id)
		if code != int(t.reply) {
			return ok, c.requestError(code, id)
		}
		ok++
		done()
		if take() {
			if err := send(); err != nil {
				return ok, c.closedErr(ctx, err)
			}
		}
	}
	return ok, nil
}
