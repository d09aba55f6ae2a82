// This file holds mailbox, the FIFO behind Queue and behind the progressive
// results of a call: unbounded, or bounded by dropping its oldest item.

package engine

import "sync"

// mailbox is a FIFO whose put never blocks (the connection's reader must
// never wait for a slow handler); a single consumer takes items in order
// and waits on ready. A bounded mailbox holding limit items drops the
// oldest to make room for a new one and counts it.
type mailbox[T any] struct {
	mu      sync.Mutex
	items   []T
	head    int
	limit   int           // 0: unbounded
	dropped uint64        // items dropped to make room
	ready   chan struct{} // holds a token while items may be waiting
	closed  bool
}

// newMailbox returns an empty, open, unbounded mailbox.
func newMailbox[T any]() *mailbox[T] { return newBoundedMailbox[T](0) }

// newBoundedMailbox returns an empty, open mailbox holding at most limit
// items (0: unbounded).
func newBoundedMailbox[T any](limit int) *mailbox[T] {
	return &mailbox[T]{ready: make(chan struct{}, 1), limit: max(limit, 0)}
}

// put appends v, dropping the oldest item first when the mailbox is full;
// it reports whether v was accepted (false once closed) and, when an item
// was dropped for it, how many have been dropped so far (else 0).
func (m *mailbox[T]) put(v T) (accepted bool, dropped uint64) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return false, 0
	}
	if m.limit > 0 && len(m.items)-m.head >= m.limit {
		m.popLocked()
		m.dropped++
		dropped = m.dropped
	}
	m.items = append(m.items, v)
	m.mu.Unlock()
	select {
	case m.ready <- struct{}{}:
	default:
	}
	return true, dropped
}

// take removes the oldest item without blocking.
func (m *mailbox[T]) take() (T, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.head == len(m.items) {
		var zero T
		return zero, false
	}
	return m.popLocked(), true
}

// popLocked removes the oldest item of a non-empty mailbox, compacting the
// backing array once its consumed head outweighs the rest.
func (m *mailbox[T]) popLocked() T {
	var zero T
	v := m.items[m.head]
	m.items[m.head] = zero
	m.head++
	if m.head == len(m.items) {
		m.items, m.head = m.items[:0], 0
	} else if m.head > 1024 && m.head*2 > len(m.items) {
		n := copy(m.items, m.items[m.head:])
		clear(m.items[n:])
		m.items, m.head = m.items[:n], 0
	}
	return v
}

// len returns the number of items waiting.
func (m *mailbox[T]) len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.items) - m.head
}

// droppedCount returns the number of items dropped to make room.
func (m *mailbox[T]) droppedCount() uint64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.dropped
}

// close refuses new items; the consumer still takes those waiting and then
// sees isClosed.
func (m *mailbox[T]) close() {
	m.mu.Lock()
	m.closed = true
	m.mu.Unlock()
	select {
	case m.ready <- struct{}{}:
	default:
	}
}

// isClosed reports whether close was called.
func (m *mailbox[T]) isClosed() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.closed
}
