// This file holds the floor callee: REGISTER once, then an answer to every
// INVOCATION with a pre-encoded YIELD (Serve), reading only each
// invocation's message type and request ID.

package floorclient

import (
	"context"
	"errors"
	"fmt"

	"github.com/gammazero/nexus/v3/wamp"
)

// Register registers procedure with options (REGISTER pre-encoded with
// nexus's serializer) and waits for REGISTERED. Use it before Serve, on a
// Conn without a reader.
func (c *Conn) Register(ctx context.Context, procedure string, options map[string]any) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	defer c.Watch(ctx)()
	id := c.nextID.Add(1)
	b, err := c.format.serializer().Serialize(&wamp.Register{Request: wamp.ID(id), Options: options, Procedure: wamp.URI(procedure)})
	if err != nil {
		return err
	}
	if err := c.ws.WriteMessage(c.frame(), b); err != nil {
		return c.closedErr(ctx, err)
	}
	err = c.awaitReply(ctx, id, codeRegistered)
	if refused := (*RequestError)(nil); errors.As(err, &refused) {
		return fmt.Errorf("floorclient: register %s: %w", procedure, err)
	}
	return err
}

// Serve answers every INVOCATION with t (a YieldTemplate of the Conn's
// format, its request ID written per answer) and calls served after each,
// until the connection fails or closes (Close, or Watch's ctx): that error
// is returned. Other messages are read and left.
func (c *Conn) Serve(t *Template, served func()) error {
	for {
		code, id, err := c.readOne()
		if err != nil {
			return err
		}
		if code != codeInvocation {
			continue
		}
		if err := c.ws.WriteMessage(t.frame(), t.withID(id)); err != nil {
			return err
		}
		served()
	}
}
