package files_test

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

// testTemplate declares the namespaces the tests use.
const testTemplate = `
data:
  tables: []
files:
  quotaBytes: 10485760
  namespaces:
    - name: default
    - name: photos
      description: Pictures of the machine
      contentTypes: ["image/*"]
      maxObjectBytes: 4096
    - name: logs
      retention: {deleteAfter: "1 day"}
    - name: archive
      private: true
`

// env is one test's platform, installation, client and store.
type env struct {
	p    *platformtest.Platform
	inst *platformtest.Installation
	c    *client.Client
	st   *files.Store
}

// setup starts a platform with the test template, one device running the
// app, and its file store.
func setup(t *testing.T, opts ...platformtest.Option) *env {
	t.Helper()
	leakcheck.Check(t)
	p := platformtest.New(t, opts...)
	inst := p.Install(p.AddDevice("press-1"), p.AddApp("plant", testTemplate), platformtest.Dev)
	c := clienttest.Start(t, inst)
	return &env{p: p, inst: inst, c: c, st: files.New(c)}
}

// clientFor starts a client of inst for the test.
func clientFor(t *testing.T, inst *platformtest.Installation) *client.Client {
	t.Helper()
	return clienttest.Start(t, inst)
}

// ctx returns a context bounded for one test step.
func ctx(t *testing.T) context.Context {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// pattern returns n deterministic bytes.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// patternReader yields n bytes of pattern without holding them.
type patternReader struct{ off, n int64 }

func (r *patternReader) Read(p []byte) (int, error) {
	if r.off >= r.n {
		return 0, io.EOF
	}
	m := min(int64(len(p)), r.n-r.off)
	for i := range m {
		j := r.off + i
		p[i] = byte(j*7 + j/251)
	}
	r.off += m
	return int(m), nil
}

// mustCode fails the test unless err carries the file store code.
func mustCode(t *testing.T, err error, code string) {
	t.Helper()
	if got := files.CodeOf(err); got != code {
		t.Fatalf("error %v: code %q, want %q", err, got, code)
	}
}

// progressLog records the reports of a Progress option.
type progressLog struct{ done, total []int64 }

func (l *progressLog) option() files.Option {
	return files.Progress(func(done, total int64) {
		l.done = append(l.done, done)
		l.total = append(l.total, total)
	})
}

// check fails unless the reports rise to total and all say total.
func (l *progressLog) check(t *testing.T, total int64) {
	t.Helper()
	if len(l.done) == 0 {
		t.Fatalf("no progress reported")
	}
	prev := int64(0)
	for i, d := range l.done {
		if d < prev || l.total[i] != total {
			t.Fatalf("progress report %d: %d of %d after %d (want rising, of %d)", i, d, l.total[i], prev, total)
		}
		prev = d
	}
	if prev != total {
		t.Fatalf("progress ended at %d of %d", prev, total)
	}
}

// calls returns the procedures called so far, in order.
func (e *env) calls() []string {
	var out []string
	for _, m := range e.p.Calls() {
		out = append(out, m.URI)
	}
	return out
}

// equalBytes fails unless got is want.
func equalBytes(t *testing.T, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("content: %d bytes, want %d bytes (equal: false)", len(got), len(want))
	}
}
