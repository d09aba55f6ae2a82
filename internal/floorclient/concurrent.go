// This file holds many requests in flight from many goroutines: the
// reader goroutine, the pending map and Callers.

package floorclient

import "context"

// reply is what the reader hands a Caller.
type reply struct {
	id  uint64
	err error
}

// StartReader starts the goroutine that reads every reply and hands it to
// the Caller waiting for it. It ends when the connection closes (Close
// waits for it). Call it once, before NewCaller.
func (c *Conn) StartReader() {
	c.pending = map[uint64]chan<- reply{}
	c.readerDone = make(chan struct{})
	go c.read()
}

// read is the reader goroutine.
func (c *Conn) read() {
	defer close(c.readerDone)
	for {
		code, id, err := c.readOne()
		if err != nil {
			c.pmu.Lock()
			c.readErr = err
			for k, ch := range c.pending {
				ch <- reply{id: k, err: ErrClosed}
				delete(c.pending, k)
			}
			c.pmu.Unlock()
			return
		}
		c.pmu.Lock()
		ch, ok := c.pending[id]
		delete(c.pending, id)
		c.pmu.Unlock()
		if !ok {
			continue
		}
		var rerr error
		if code != codePublished && code != codeResult {
			rerr = c.requestError(code, id)
		}
		ch <- reply{id: id, err: rerr}
	}
}

// Caller sends requests over a Conn with a reader (StartReader) from one
// goroutine; give each goroutine its own Caller.
type Caller struct {
	c  *Conn
	ch chan reply
}

// NewCaller returns a Caller of c.
func (c *Conn) NewCaller() *Caller {
	// Room for two: the reply of a request abandoned just as the reader
	// took it, and the reply of the next request, so the reader never
	// blocks on a Caller.
	return &Caller{c: c, ch: make(chan reply, 2)}
}

// Do sends t (shared by all Callers: it is patched and written under the
// connection's write lock) with a new request ID and waits for its reply
// or for ctx to end. An ended ctx sends nothing.
func (k *Caller) Do(ctx context.Context, t *Template) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c := k.c
	select {
	case <-k.ch: // a stale reply of an abandoned request
	default:
	}
	id := c.nextID.Add(1)
	c.pmu.Lock()
	if c.readErr != nil {
		c.pmu.Unlock()
		return ErrClosed
	}
	c.pending[id] = k.ch
	c.pmu.Unlock()

	c.wmu.Lock()
	err := c.ws.WriteMessage(t.frame(), t.withID(id))
	c.wmu.Unlock()
	if err != nil {
		k.forget(id)
		return c.closedErr(ctx, err)
	}
	for {
		select {
		case r := <-k.ch:
			if r.id != id {
				continue // a late reply of a request abandoned earlier
			}
			return r.err
		case <-ctx.Done():
			k.forget(id)
			return ctx.Err()
		}
	}
}

// forget removes id from the pending map.
func (k *Caller) forget(id uint64) {
	k.c.pmu.Lock()
	delete(k.c.pending, id)
	k.c.pmu.Unlock()
}
