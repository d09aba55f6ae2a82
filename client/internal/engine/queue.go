// This file holds Queue: values handled in order, one at a time, on a
// goroutine of their own, without ever blocking the one that puts them.

package engine

import (
	"context"
	"sync"
	"sync/atomic"
)

// Queue hands the values put into it to a handler in order, one call at a
// time, on a goroutine of its own. Put never blocks, so a session's reader
// never waits for a slow handler: each subscription delivers its events
// through one. A bounded queue (NewBoundedQueue) that is full drops its
// oldest value to make room for the new one and counts it.
type Queue[T any] struct {
	mb      *mailbox[T]
	handle  func(context.Context, T)
	onDrop  func(dropped uint64)
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	stopped atomic.Bool
	once    sync.Once
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
	q := &Queue[T]{mb: newBoundedMailbox[T](limit), handle: handle, onDrop: onDrop, done: make(chan struct{})}
	q.ctx, q.cancel = context.WithCancel(ctx)
	go q.run()
	return q
}

func (q *Queue[T]) run() {
	defer close(q.done)
	defer q.cancel()
	for {
		select {
		case <-q.mb.ready:
		case <-q.ctx.Done():
			return
		}
		// Seen before draining, a close lets nothing in after the drain.
		closed := q.mb.isClosed()
		for !q.stopped.Load() {
			v, ok := q.mb.take()
			if !ok {
				break
			}
			q.handle(q.ctx, v)
		}
		if closed || q.stopped.Load() {
			return
		}
	}
}

// Put queues v; it reports false once the queue is closed or stopped.
func (q *Queue[T]) Put(v T) bool {
	accepted, dropped := q.mb.put(v)
	if dropped > 0 && q.onDrop != nil {
		q.onDrop(dropped)
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
		q.cancel()
		q.mb.close()
	})
}

// Close refuses new values; those already queued are still handled, then
// the goroutine ends.
func (q *Queue[T]) Close() { q.mb.close() }

// Done is closed once the queue's goroutine has ended.
func (q *Queue[T]) Done() <-chan struct{} { return q.done }
