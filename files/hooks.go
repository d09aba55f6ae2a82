// This file holds the file store's observation hook (docs/observability.md):
// WithHooks and HookTransfer, told of every Put and Get with its bytes and
// latency, beside the client's hooks, which see the files.* calls.

package files

import (
	"context"
	"io"
	"time"
)

// HookTransfer is told of every Put (Put, PutReader, PutFile) and Get
// (Get, GetTo, GetToFile) once it ended.
type HookTransfer interface {
	OnTransfer(ctx context.Context, t Transfer)
}

// Transfer describes one Put or Get.
type Transfer struct {
	Op        string // "put" or "get"
	Namespace string
	// Bytes is the content's size for a put, the bytes written to the
	// caller's writer for a get.
	Bytes   int64
	Latency time.Duration
	Err     error // nil on success
}

// WithHooks adds observation hooks to the Store: the values that
// implement HookTransfer are told of every transfer; the others are
// ignored (they may be the client's hooks). Hooks run on the caller's
// goroutine and must return quickly.
func WithHooks(hooks ...any) StoreOption {
	return func(s *storeSettings) {
		for _, h := range hooks {
			if t, ok := h.(HookTransfer); ok {
				s.hooks = append(s.hooks, t)
			}
		}
	}
}

// put is putObject with the hooks told.
func (s *Store) put(ctx context.Context, key string, r io.Reader, size int64, set *callSettings) (*Object, string, error) {
	if len(s.hooks) == 0 {
		return s.putObject(ctx, key, r, size, set)
	}
	start := time.Now()
	o, proc, err := s.putObject(ctx, key, r, size, set)
	s.told(ctx, Transfer{Op: "put", Namespace: set.namespace, Bytes: size, Latency: time.Since(start), Err: err})
	return o, proc, err
}

// get is getObject with the hooks told.
func (s *Store) get(ctx context.Context, key string, w io.Writer, set *callSettings) (*Object, string, error) {
	if len(s.hooks) == 0 {
		return s.getObject(ctx, key, w, set)
	}
	start := time.Now()
	cw := &countingWriter{w: w}
	o, proc, err := s.getObject(ctx, key, cw, set)
	s.told(ctx, Transfer{Op: "get", Namespace: set.namespace, Bytes: cw.n, Latency: time.Since(start), Err: err})
	return o, proc, err
}

func (s *Store) told(ctx context.Context, t Transfer) {
	for _, h := range s.hooks {
		h.OnTransfer(ctx, t)
	}
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
