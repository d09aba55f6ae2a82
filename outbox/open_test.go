package outbox_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/selfexec"
	"github.com/flockgo/ironflock/outbox"
)

// offlineClient is a client that is never started: an outbox on it
// stores rows and sends none.
func offlineClient(t testing.TB) *client.Client {
	t.Helper()
	c, err := client.New(client.WithLogger(quiet), client.WithEnv(map[string]string{
		"DEVICE_SERIAL_NUMBER": "offline", "SWARM_KEY": "1", "APP_KEY": "1", "DEVICE_ENDPOINT_URL": "ws://127.0.0.1:1",
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(ctxT(t)) })
	return c
}

func TestOpenRefuses(t *testing.T) {
	leakcheck.Check(t)
	c := offlineClient(t)
	write := func(t *testing.T, content string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, outbox.FileName), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	foreignDB := func(t *testing.T, bucket string, meta map[string]string) string {
		dir := t.TempDir()
		db, err := bolt.Open(filepath.Join(dir, outbox.FileName), 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = db.Update(func(tx *bolt.Tx) error {
			b, err := tx.CreateBucket([]byte(bucket))
			if err != nil {
				return err
			}
			for k, v := range meta {
				if err := b.Put([]byte(k), []byte(v)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, tc := range []struct {
		name string
		dir  func(t *testing.T) string
		opts []outbox.Option
		want error
		text string
	}{
		{"garbage file", func(t *testing.T) string { return write(t, strings.Repeat("not a database ", 1000)) }, nil, outbox.ErrCorrupt, "outbox.db"},
		{"truncated file", func(t *testing.T) string { return write(t, "short") }, nil, outbox.ErrCorrupt, "outbox.db"},
		{"another program's database", func(t *testing.T) string { return foreignDB(t, "users", nil) }, nil, outbox.ErrForeign, "another program"},
		{"another format", func(t *testing.T) string {
			return foreignDB(t, "meta", map[string]string{"format": "something-else 1"})
		}, nil, outbox.ErrForeign, "something-else"},
		{"a newer outbox", func(t *testing.T) string {
			return foreignDB(t, "meta", map[string]string{"format": "ironflock-outbox 99"})
		}, nil, outbox.ErrForeign, "newer format"},
		{"a directory in the file's place", func(t *testing.T) string {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, outbox.FileName), 0o700); err != nil {
				t.Fatal(err)
			}
			return dir
		}, nil, outbox.ErrForeign, "not a regular file"},
		{"a file in the directory's place", func(t *testing.T) string { return filepath.Join(write(t, "x"), outbox.FileName) }, nil, outbox.ErrDisk, "not a directory"},
		{"a bad option", func(t *testing.T) string { return t.TempDir() }, []outbox.Option{outbox.WithBatch(0, 1)}, outbox.ErrInvalidArgument, "batch"},
		{"a bad id column", func(t *testing.T) string { return t.TempDir() }, []outbox.Option{outbox.WithIDColumn(" id")}, outbox.ErrInvalidArgument, "id column"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tc.dir(t)
			ob, err := outbox.Open(c, dir, tc.opts...)
			if err == nil {
				ob.Close()
				t.Fatalf("Open succeeded, want %v", tc.want)
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.text) {
				t.Errorf("Open = %v, want %v mentioning %q", err, tc.want, tc.text)
			}
		})
	}
	if _, err := outbox.Open(nil, t.TempDir()); !errors.Is(err, outbox.ErrInvalidArgument) {
		t.Errorf("Open(nil client) = %v, want ErrInvalidArgument", err)
	}
}

func TestOpenLocked(t *testing.T) {
	leakcheck.Check(t)
	c := offlineClient(t)
	dir := t.TempDir()
	ob, err := outbox.Open(c, dir, outbox.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	if _, err := outbox.Open(c, dir, outbox.WithLockTimeout(10e6)); !errors.Is(err, outbox.ErrLocked) {
		t.Errorf("second Open = %v, want ErrLocked", err)
	}
}

func TestAppendRefusesBadInput(t *testing.T) {
	leakcheck.Check(t)
	ob, err := outbox.Open(offlineClient(t), t.TempDir(), outbox.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	for name, call := range map[string]func() error{
		"empty table":     func() error { _, err := ob.Append(ctxT(t), "", reading{}); return err },
		"table with dots": func() error { _, err := ob.Append(ctxT(t), "a.b", reading{}); return err },
		"not an object":   func() error { _, err := ob.Append(ctxT(t), "readings", 42); return err },
		"nil row":         func() error { _, err := ob.Append(ctxT(t), "readings", nil); return err },
		"unencodable": func() error {
			_, err := ob.Append(ctxT(t), "readings", map[string]any{"c": make(chan int)})
			return err
		},
		"no rows":         func() error { _, err := ob.AppendRows(ctxT(t), "readings", []reading{}); return err },
		"rows not a list": func() error { _, err := ob.AppendRows(ctxT(t), "readings", reading{}); return err },
		"a row not an object": func() error {
			_, err := ob.AppendRows(ctxT(t), "readings", []any{map[string]any{}, "x"})
			return err
		},
	} {
		if err := call(); !errors.Is(err, outbox.ErrInvalidArgument) {
			t.Errorf("%s: %v, want ErrInvalidArgument", name, err)
		}
	}
	if s := ob.Stats(); s.Pending != 0 {
		t.Errorf("%d rows pending after refused appends", s.Pending)
	}
}

// The disk refusing a write (here: a file size limit, as a full disk
// would) fails Append with ErrDisk and the file system's error, and
// leaves what was stored before intact. It runs in a child process, so
// that the limit touches nothing else.
func TestDiskFull(t *testing.T) {
	leakcheck.Check(t)
	dir := t.TempDir()
	cmd := selfexec.Command("-test.run=^$")
	cmd.Env = append(os.Environ(), childRole+"=diskfull", childDir+"="+dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", selfexec.Explain(err), out)
	}
	text := string(out)
	if !strings.Contains(text, "ErrDisk true") || !strings.Contains(text, "file too large") {
		t.Fatalf("child output:\n%s", text)
	}
	stored := 0
	if _, err := fmtSscanLast(text, "stored ", &stored); err != nil {
		t.Fatalf("child output: %v\n%s", err, text)
	}
	// The rows stored before the disk refused are all there.
	ob, err := outbox.Open(offlineClient(t), dir, outbox.WithLogger(quiet))
	if err != nil {
		t.Fatalf("reopen after a full disk: %v", err)
	}
	defer ob.Close()
	if s := ob.Stats(); s.Pending != int64(stored) {
		t.Errorf("%d rows pending after reopening, the child stored %d", s.Pending, stored)
	}
}

// diskFullChild fills an outbox under a file size limit.
func diskFullChild(dir string) {
	signalIgnoreXFSZ()
	c, err := client.New(client.WithLogger(quiet), client.WithEnv(map[string]string{
		"DEVICE_SERIAL_NUMBER": "offline", "SWARM_KEY": "1", "APP_KEY": "1", "DEVICE_ENDPOINT_URL": "ws://127.0.0.1:1",
	}))
	if err != nil {
		fail("client: %v", err)
	}
	ob, err := outbox.Open(c, dir, outbox.WithLogger(quiet))
	if err != nil {
		fail("open: %v", err)
	}
	fi, err := os.Stat(filepath.Join(dir, outbox.FileName))
	if err != nil {
		fail("stat: %v", err)
	}
	limit := uint64(fi.Size() + 64<<10)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		fail("setrlimit: %v", err)
	}
	row := map[string]any{"tsp": t0, "payload": strings.Repeat("x", 512)}
	stored := 0
	for ; stored < 100000; stored++ {
		_, err = ob.Append(ctxBackground(), "readings", row)
		if err != nil {
			break
		}
	}
	if err == nil {
		fail("100000 rows stored under a limit of %d bytes", limit)
	}
	say("append error: %v", err)
	say("ErrDisk %v", errors.Is(err, outbox.ErrDisk)) // bbolt keeps only the text of some file errors
	say("stored %d", stored)
	if err := ob.Close(); err != nil {
		say("close: %v", err)
	}
}
