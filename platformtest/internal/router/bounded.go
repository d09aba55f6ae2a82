// This file holds the bound of the per-event records other than the
// recording (recording.go): the authentication log and what each
// interception saw keep their newest entries within a count, so that a
// long-running server (flockd) does not grow without end. Appending is
// O(1) amortised: the slice grows to twice the bound, then the older half
// is let go at once.

package router

// DefaultAuthLogLimit is how many authentication attempts the log keeps
// by default.
const DefaultAuthLogLimit = 10000

// maxSeen is how many messages an interception keeps (Seen); Wait counts
// every match.
const maxSeen = 10000

// bounded keeps the newest entries within limit (> 0).
type bounded[T any] struct {
	limit   int
	items   []T
	dropped int64 // entries let go
}

func (b *bounded[T]) add(v T) {
	b.items = append(b.items, v)
	if len(b.items) >= 2*b.limit {
		n := len(b.items) - b.limit
		clear(b.items[:n])
		b.items = append(b.items[:0], b.items[n:]...)
		b.dropped += int64(n)
	}
}

// all returns the kept entries, oldest first (shared: callers copy).
func (b *bounded[T]) all() []T {
	if len(b.items) > b.limit {
		return b.items[len(b.items)-b.limit:]
	}
	return b.items
}

// lost returns how many entries were let go.
func (b *bounded[T]) lost() int64 {
	return b.dropped + int64(max(0, len(b.items)-b.limit))
}
