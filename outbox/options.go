// This file holds the options of Open, their defaults (in one place,
// defaults()) and the policies of a full outbox.

package outbox

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/flockgo/ironflock/client"
)

// Policy says what Append does when the outbox is at its size limit.
type Policy int

const (
	// Block makes Append wait until delivered rows make room, or its
	// context ends. The default.
	Block Policy = iota
	// Fail makes Append fail at once with ErrFull.
	Fail
	// DropOldest makes room by deleting the oldest pending rows (of any
	// table) that are not being sent; Stats.Dropped counts them.
	DropOldest
)

// String returns the policy's name.
func (p Policy) String() string {
	switch p {
	case Block:
		return "Block"
	case Fail:
		return "Fail"
	case DropOldest:
		return "DropOldest"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// Option configures Open.
type Option func(*settings)

type settings struct {
	idColumn     string
	maxRows      int64
	maxBytes     int64
	policy       Policy
	batchRows    int
	batchBytes   int
	sendTimeout  time.Duration
	retryInitial time.Duration
	retryMax     time.Duration
	lockTimeout  time.Duration
	logger       *slog.Logger
	hooks        hookSet
	errs         []error
}

// settingsOf returns the defaults with opts applied, as Open takes them.
func settingsOf(opts []Option) settings {
	set := defaults()
	for _, o := range opts {
		o(&set)
	}
	return set
}

// defaults are the settings without options.
func defaults() settings {
	return settings{
		policy:       Block,
		batchRows:    500,
		batchBytes:   1 << 20,
		sendTimeout:  2 * time.Minute,
		retryInitial: 500 * time.Millisecond,
		retryMax:     30 * time.Second,
		lockTimeout:  time.Second,
		logger:       slog.Default(),
	}
}

// WithIDColumn names the column of every table the outbox writes that
// holds each row's id (a string column whose path is the default,
// args[0].<column>; template.DataTemplate.CheckRowIDColumn checks it).
// The sender writes each row's id (the one Append returned) in it,
// replacing a value the row has. With it, delivery is exactly once: after
// a send whose outcome is unknown the sender reads the ids back before
// sending again. Without it, delivery is at least once: such a
// send is repeated, and the row may be stored twice.
func WithIDColumn(column string) Option { return func(s *settings) { s.idColumn = column } }

// WithMaxRows bounds the pending rows; 0 (the default) means no bound.
func WithMaxRows(n int64) Option { return func(s *settings) { s.maxRows = n } }

// WithMaxBytes bounds the pending rows' size on disk (keys and encoded
// rows, not the file's pages); 0 (the default) means no bound other than
// the disk's.
func WithMaxBytes(n int64) Option { return func(s *settings) { s.maxBytes = n } }

// WithFullPolicy sets what Append does at the size limit: Block (the
// default), Fail or DropOldest.
func WithFullPolicy(p Policy) Option { return func(s *settings) { s.policy = p } }

// WithBatch bounds one bulk append of the sender: at most rows rows
// (default 500, at most 10000: a lookup by id reads at most that many
// rows) and about bytes bytes of encoded rows (default 1 MiB; a single
// larger row still goes alone).
func WithBatch(rows, bytes int) Option {
	return func(s *settings) { s.batchRows, s.batchBytes = rows, bytes }
}

// WithSendTimeout bounds one send of the sender, the wait for a session
// included (default 2 minutes). A send that times out counts as one whose
// outcome is unknown.
func WithSendTimeout(d time.Duration) Option { return func(s *settings) { s.sendTimeout = d } }

// WithRetryBackoff sets the wait after a temporary refusal
// (storage_full, …): initial, doubling up to max (defaults 0.5 s and
// 30 s). Lost connections are not waited out this way: the next send
// waits for the client's supervisor to reconnect.
func WithRetryBackoff(initial, max time.Duration) Option {
	return func(s *settings) { s.retryInitial, s.retryMax = initial, max }
}

// WithLockTimeout sets how long Open waits for a directory another open
// outbox holds before failing with ErrLocked (default 1 s).
func WithLockTimeout(d time.Duration) Option { return func(s *settings) { s.lockTimeout = d } }

// WithLogger sets the logger of the sender (default slog.Default()):
// dead letters and dropped rows at warning level, temporary refusals at
// info level.
func WithLogger(l *slog.Logger) Option { return func(s *settings) { s.logger = l } }

// limits describes the size limit in messages.
func (s *settings) limits() string {
	switch {
	case s.maxRows > 0 && s.maxBytes > 0:
		return fmt.Sprintf("%d rows, %d bytes", s.maxRows, s.maxBytes)
	case s.maxRows > 0:
		return fmt.Sprintf("%d rows", s.maxRows)
	}
	return fmt.Sprintf("%d bytes", s.maxBytes)
}

// check refuses settings that cannot work.
func (s *settings) check() error {
	switch {
	case len(s.errs) > 0:
		return reason(ErrInvalidArgument, "%v", s.errs[0])
	case s.maxRows < 0 || s.maxBytes < 0:
		return reason(ErrInvalidArgument, "negative size limit")
	case s.policy < Block || s.policy > DropOldest:
		return reason(ErrInvalidArgument, "unknown policy %v", s.policy)
	case s.batchRows < 1 || s.batchBytes < 1 || s.batchRows > client.MaxHistoryLimit:
		return reason(ErrInvalidArgument, "a batch needs 1…%d rows and a positive byte bound, got %d rows, %d bytes", client.MaxHistoryLimit, s.batchRows, s.batchBytes)
	case s.sendTimeout <= 0:
		return reason(ErrInvalidArgument, "send timeout must be positive")
	case s.retryInitial <= 0 || s.retryMax < s.retryInitial:
		return reason(ErrInvalidArgument, "retry backoff needs 0 < initial ≤ max")
	case s.lockTimeout <= 0:
		return reason(ErrInvalidArgument, "lock timeout must be positive")
	case s.logger == nil:
		return reason(ErrInvalidArgument, "nil logger")
	}
	if err := checkName("id column", s.idColumn, true); err != nil {
		return err
	}
	return nil
}
