// This file holds safely, which runs the user's event handlers, state
// handler and stop hooks so that a panic is logged instead of ending the
// process.

package client

import "fmt"

// safely runs fn and logs a panic as "<what> panicked" with uri.
func (c *Client) safely(what, uri string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("ironflock: "+what+" panicked", "uri", uri, "panic", fmt.Sprint(r))
		}
	}()
	fn()
}
