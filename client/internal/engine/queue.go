// This file holds Queue: values handled in order, one at a time, on a
// goroutine of their own while any wait, without ever blocking the one
// that puts them.

package engine

import (
	"context"
	"sync"
	"sync/atomic"
)

// Queue hands the values put into it to a handler in order, one call at a
// time, on a goroutine of its own while values wait (an idle queue holds
// no goroutine: a fleet of idle subscriptions costs no stacks). Put never
// blocks, so a session's reader never waits for a slow handler: each
// subscription delivers its events through one. A bounded queue
// (NewBoundedQueue) that is full drops its oldest value to make room for
// the new one and counts it.
type Queue[T any] struct {
	mb     mailbox[T] // without ready: nobody waits on it
	handle func(context.Context, T)
	onDrop func(dropped uint64)
	parent context.Context
	// unhook removes the queue's end from parent's (AfterFunc), once the
	// queue has ended.
	unhook  func() bool
	done    chan struct{}
	stopped atomic.Bool
	once    sync.Once

	mu      sync.Mutex
	running bool // a goroutine hands out what waits (drain)
	ended   bool // done is closed
	// ctx is the handler's context, derived from parent when a drain
	// first starts (an idle queue that never handled a value holds
	// none); it ends with the queue. cancel ends it.
	ctx    context.Context
	cancel context.CancelFunc
}

// NewQueue starts an unbounded queue whose handler runs with a context
// derived from ctx; the queue ends at once when ctx does.
func NewQueue[T any](ctx context.Context, handle func(ctx context.Context, v T)) *Queue[T] {
	return NewBoundedQueue(ctx, 0, nil, handle)
}

// NewBoundedQueue starts a queue holding at most limit values waiting for
// the handler (0: unbounded). When a value arrives at a full queue the
// oldest waiting value is dropped, and onDrop, if not nil, is called on
// the putting goroutine with the number dropped so far: it must not block.
func NewBoundedQueue[T any](ctx context.Context, limit int, onDrop func(dropped uint64), handle func(ctx context.Context, v T)) *Queue[T] {
	q := &Queue[T]{mb: mailbox[T]{limit: max(limit, 0)}, handle: handle, onDrop: onDrop, parent: ctx, done: make(chan struct{})}
	q.unhook = afterEnd(ctx, q.endIdle) // an idle queue ends with its context too
	return q
}

// over reports whether the queue must hand out nothing more: it was
// stopped, or its context ended.
func (q *Queue[T]) over() bool { return q.stopped.Load() || q.parent.Err() != nil }

// drain hands the waiting values to the handler, in order, until none
// waits (the goroutine then leaves until the next Put) or the queue ends.
func (q *Queue[T]) drain() {
	for {
		for !q.over() {
			v, ok := q.mb.take()
			if !ok {
				break
			}
			q.handle(q.ctx, v)
		}
		q.mu.Lock()
		switch {
		case q.over():
			q.endLocked()
		case q.mb.len() > 0: // put after the take found none
			q.mu.Unlock()
			continue
		case q.mb.isClosed(): // a close lets nothing in after the drain
			q.endLocked()
		default:
			q.running = false
		}
		q.mu.Unlock()
		return
	}
}

// kick starts drain unless it runs or the queue has ended; an idle closed
// queue ends.
func (q *Queue[T]) kick() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.running || q.ended {
		return
	}
	if q.mb.len() == 0 {
		if q.mb.isClosed() || q.stopped.Load() {
			q.endLocked()
		}
		return
	}
	q.running = true
	if q.ctx == nil {
		q.ctx, q.cancel = context.WithCancel(q.parent)
	}
	go q.drain()
}

// endIdle ends the queue once its context has ended, unless drain runs
// (it ends the queue itself).
func (q *Queue[T]) endIdle() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.running {
		q.endLocked()
	}
}

// endLocked ends the queue, once: the handler's context ends and Done is
// closed. q.mu is held.
func (q *Queue[T]) endLocked() {
	q.running = false
	if q.ended {
		return
	}
	q.ended = true
	if q.cancel != nil {
		q.cancel()
	}
	q.unhook()
	close(q.done)
}

// Put queues v; it reports false once the queue is closed or stopped.
func (q *Queue[T]) Put(v T) bool {
	accepted, dropped := q.mb.put(v)
	if dropped > 0 && q.onDrop != nil {
		q.onDrop(dropped)
	}
	if accepted {
		q.kick()
	}
	return accepted
}

// Len returns the number of values waiting for the handler.
func (q *Queue[T]) Len() int { return q.mb.len() }

// Dropped returns the number of values dropped because the queue was full.
func (q *Queue[T]) Dropped() uint64 { return q.mb.droppedCount() }

// Stop ends the queue at once: no handler call starts afterwards, the
// handler's context ends, and values still queued are dropped.
func (q *Queue[T]) Stop() {
	q.once.Do(func() {
		q.stopped.Store(true)
		q.mu.Lock()
		if q.cancel != nil {
			q.cancel()
		}
		q.mu.Unlock()
		q.mb.close()
		q.kick()
	})
}

// Close refuses new values; those already queued are still handled, then
// the queue ends.
func (q *Queue[T]) Close() {
	q.mb.close()
	q.kick()
}

// Done is closed once the queue has ended: no handler call runs or starts.
func (q *Queue[T]) Done() <-chan struct{} { return q.done }
