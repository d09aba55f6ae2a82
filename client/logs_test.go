// This file holds logCapture, a slog handler whose messages and
// attributes the tests read and wait for.

package client_test

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// logCapture is a slog.Handler keeping every message and its attributes.
type logCapture struct {
	mu      sync.Mutex
	entries []logEntry
	changed chan struct{} // closed and replaced at every entry
}

type logEntry struct {
	level slog.Level
	msg   string
	attrs map[string]slog.Value
}

func (l *logCapture) Enabled(context.Context, slog.Level) bool { return true }
func (l *logCapture) Handle(_ context.Context, r slog.Record) error {
	e := logEntry{level: r.Level, msg: r.Message, attrs: map[string]slog.Value{}}
	r.Attrs(func(a slog.Attr) bool { e.attrs[a.Key] = a.Value; return true })
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, e)
	if l.changed != nil {
		close(l.changed)
	}
	l.changed = make(chan struct{})
	return nil
}
func (l *logCapture) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logCapture) WithGroup(string) slog.Handler      { return l }

// with returns the entries whose message contains sub.
func (l *logCapture) with(sub string) []logEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []logEntry
	for _, e := range l.entries {
		if strings.Contains(e.msg, sub) {
			out = append(out, e)
		}
	}
	return out
}
func (l *logCapture) messages() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.entries {
		out = append(out, e.msg)
	}
	return out
}
func (l *logCapture) has(sub string) bool  { return l.count(sub) > 0 }
func (l *logCapture) count(sub string) int { return len(l.with(sub)) }

// await waits until n messages contain sub.
func (l *logCapture) await(t *testing.T, sub string, n int) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		l.mu.Lock()
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		changed := l.changed
		l.mu.Unlock()
		if l.count(sub) >= n {
			return
		}
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%d messages containing %q not logged within 10s; logged: %v", n, sub, l.messages())
		}
	}
}
