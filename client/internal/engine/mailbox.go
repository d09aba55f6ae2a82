// This file holds mailbox, the unbounded FIFO behind Queue and behind the
// progressive results of a call.

package engine

import "sync"

// mailbox is an unbounded FIFO: put never blocks (the connection's reader
// must never wait for a slow handler), a single consumer takes items in
// order and waits on ready().
type mailbox[T any] struct {
	mu     sync.Mutex
	items  []T
	head   int
	ready  chan struct{} // holds a token while items may be waiting
	closed bool
}

// newMailbox returns an empty, open mailbox.
func newMailbox[T any]() *mailbox[T] {
	return &mailbox[T]{ready: make(chan struct{}, 1)}
}

// put appends v; it reports false once the mailbox is closed.
func (m *mailbox[T]) put(v T) bool {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return false
	}
	m.items = append(m.items, v)
	m.mu.Unlock()
	select {
	case m.ready <- struct{}{}:
	default:
	}
	return true
}

// take removes the oldest item without blocking.
func (m *mailbox[T]) take() (T, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var zero T
	if m.head == len(m.items) {
		return zero, false
	}
	v := m.items[m.head]
	m.items[m.head] = zero
	m.head++
	if m.head == len(m.items) {
		m.items, m.head = m.items[:0], 0
	} else if m.head > 1024 && m.head*2 > len(m.items) {
		m.items = append(m.items[:0], m.items[m.head:]...)
		m.head = 0
	}
	return v, true
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
