package files_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/internal/wire"
)

// TestGetToFileKeepsOldFile: a download that fails midway, or is
// canceled, leaves the old file as it was and no partial file behind.
func TestGetToFileKeepsOldFile(t *testing.T) {
	// Larger than what the loopback's socket buffers can hold, so that
	// the transfer really breaks midway.
	const size = 48 << 20
	e := setup(t)
	e.p.SetFilesInlineMaxBytes(1024)
	ctx := ctx(t)
	// A client of its own that tells when it is connected again.
	states := make(chan client.State, 16)
	st := files.New(clienttest.Start(t, e.inst, client.WithStateHandler(func(s client.State) { states <- s })))
	if _, err := st.PutReader(ctx, "firmware.bin", &patternReader{n: size}, size); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "firmware.bin")
	old := []byte("the old firmware")
	if err := os.WriteFile(path, old, 0o600); err != nil {
		t.Fatal(err)
	}
	checkKept := func(t *testing.T) {
		t.Helper()
		if got, err := os.ReadFile(path); err != nil || string(got) != string(old) {
			t.Errorf("old file: %q, %v", got, err)
		}
		if entries, _ := os.ReadDir(dir); len(entries) != 1 {
			t.Errorf("left behind: %v", entries)
		}
	}

	t.Run("canceled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		_, err := st.GetToFile(cctx, "firmware.bin", path, files.Progress(func(done, total int64) { cancel() }))
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error %v, want context.Canceled", err)
		}
		checkKept(t)
	})
	t.Run("connection dropped", func(t *testing.T) {
		dropped := false
		_, err := st.GetToFile(ctx, "firmware.bin", path, files.Progress(func(done, total int64) {
			if !dropped {
				dropped = true
				e.p.DropConnections()
			}
		}))
		mustCode(t, err, files.CodeInternal)
		checkKept(t)
		// Wait until the client noticed and is back.
		for s := range states {
			if s == client.StateReconnecting {
				break
			}
		}
		for s := range states {
			if s == client.StateConnected {
				break
			}
		}
	})
	t.Run("complete", func(t *testing.T) {
		o, err := st.GetToFile(ctx, "firmware.bin", path)
		if err != nil || o.Size != size {
			t.Fatalf("GetToFile = %+v, %v", o, err)
		}
		if fi, err := os.Stat(path); err != nil || fi.Size() != size || fi.Mode().Perm() != 0o600 {
			t.Errorf("file %v, %v: want %d bytes, mode 0600 kept", fi, err, size)
		}
	})
}

// TestPutCanceled: canceling the context stops a direct upload; nothing
// is stored.
func TestPutCanceled(t *testing.T) {
	const size = 32 << 20
	e := setup(t)
	e.p.SetFilesInlineMaxBytes(1024)
	cctx, cancel := context.WithCancel(ctx(t))
	defer cancel()
	_, err := e.st.PutReader(cctx, "big", &patternReader{n: size}, size, files.Progress(func(done, total int64) {
		if done >= 1<<20 {
			cancel()
		}
	}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if objs := e.p.FileObjects(e.inst.Realm()); len(objs) != 0 {
		t.Errorf("stored %v", objs)
	}
}

// TestShortReader: a reader that ends before the announced size is the
// caller's mistake, on both transports.
func TestShortReader(t *testing.T) {
	e := setup(t)
	e.p.SetFilesInlineMaxBytes(1024)
	for _, size := range []int64{512, 4096} {
		_, err := e.st.PutReader(ctx(t), "short", &patternReader{n: size - 1}, size)
		if !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("size %d: error %v, want ErrInvalidArgument", size, err)
		}
	}
	if objs := e.p.FileObjects(e.inst.Realm()); len(objs) != 0 {
		t.Errorf("stored %v", objs)
	}
}

// TestInlineLimitShrinks: the inline limit is the server's; when it
// shrinks after the catalog was cached, the refused inline put is sent
// directly.
func TestInlineLimitShrinks(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	if _, err := e.st.Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	e.p.SetFilesInlineMaxBytes(1024)
	e.p.ClearRecorded()
	o, err := e.st.Put(ctx, "grown", pattern(2048))
	if err != nil || o.Size != 2048 {
		t.Fatalf("Put = %+v, %v", o, err)
	}
	want := []string{wire.FilesPut, wire.FilesNamespaces, wire.FilesWriteURL, wire.FilesStat}
	if got := e.calls(); !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}

// TestEvents: files.events tells subscribers about stored and deleted
// objects.
func TestEvents(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	events := make(chan map[string]any, 8)
	if _, err := e.c.Subscribe(ctx, wire.FilesEventsTopic, func(_ context.Context, ev *client.Event) {
		var m map[string]any
		if ev.Decode(&m) == nil {
			events <- m
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.st.Put(ctx, "e.txt", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := e.st.Delete(ctx, "e.txt"); err != nil {
		t.Fatal(err)
	}
	for _, action := range []string{wire.FileActionPut, wire.FileActionDelete} {
		select {
		case ev := <-events:
			obj, _ := ev[wire.FieldObject].(map[string]any)
			if ev[wire.FieldAction] != action || obj[wire.FieldKey] != "e.txt" || obj[wire.FieldNamespace] != "default" {
				t.Errorf("event %v, want %s of e.txt", ev, action)
			}
		case <-ctx.Done():
			t.Fatalf("no %s event", action)
		}
	}
}

// TestRetention: objects of a namespace with retention go when they are
// older than it allows, on the platform clock.
func TestRetention(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	for _, ns := range []string{"logs", "default"} {
		if _, err := e.st.Put(ctx, "old.log", []byte("x"), files.Namespace(ns)); err != nil {
			t.Fatal(err)
		}
	}
	e.p.Clock().Advance(23 * time.Hour)
	if ok, err := e.st.Exists(ctx, "old.log", files.Namespace("logs")); !ok || err != nil {
		t.Errorf("after 23 hours: %v, %v", ok, err)
	}
	e.p.Clock().Advance(time.Hour)
	if ok, err := e.st.Exists(ctx, "old.log", files.Namespace("logs")); ok || err != nil {
		t.Errorf("after a day: %v, %v", ok, err)
	}
	if ok, _ := e.st.Exists(ctx, "old.log"); !ok {
		t.Errorf("the default namespace has no retention")
	}
}

// TestLargeUploadRefusedEarly: the object store refuses a large upload
// before reading its body; the SDK still reads the refusal, not a broken
// connection.
func TestLargeUploadRefusedEarly(t *testing.T) {
	const size = 64 << 20
	e := setup(t)
	e.p.SetFilesInlineMaxBytes(1024)
	e.p.SetDeviceClockSkew(-20 * time.Minute)
	_, err := e.st.PutReader(ctx(t), "big", &patternReader{n: size}, size)
	mustCode(t, err, files.CodeClockSkew)
	if !strings.Contains(err.Error(), "RequestTimeTooSkewed: The difference") {
		t.Errorf("reason %v", err)
	}
}

// TestAirGapped: without direct transfers, the seed says an object above
// the inline limit cannot be transferred at all (TOO_LARGE). The SDK goes
// beyond it for reads, as the official SDK does: it reads the object in
// ranges through the router. Writes above the limit stay TOO_LARGE, refused
// before anything is sent.
func TestAirGapped(t *testing.T) {
	const inline, size = 1024, 5000
	e := setup(t)
	e.p.SetFilesInlineMaxBytes(inline)
	e.p.SetFilesPresign(false)
	ctx := ctx(t)
	data := pattern(size)
	e.p.StoreFile(e.inst.Realm(), files.DefaultNamespace, "big", data, "")
	e.p.ClearRecorded()
	got, err := e.st.Get(ctx, "big")
	if err != nil {
		t.Fatal(err)
	}
	equalBytes(t, got, data)
	// One plain get (TOO_LARGE, as the seed says), then ranges of the
	// inline limit.
	var offsets []any
	for _, m := range e.p.Calls() {
		if m.URI == wire.FilesGet {
			offsets = append(offsets, m.Args[0].(map[string]any)[wire.FieldOffset])
		}
	}
	if want := []any{nil, int64(0), int64(1024), int64(2048), int64(3072), int64(4096)}; !slices.Equal(offsets, want) {
		t.Errorf("files.read.get offsets %v, want %v", offsets, want)
	}

	src := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	e.p.ClearRecorded()
	for name, put := range map[string]func() (*files.Object, error){
		"Put":       func() (*files.Object, error) { return e.st.Put(ctx, "w", data) },
		"PutReader": func() (*files.Object, error) { return e.st.PutReader(ctx, "w", &patternReader{n: size}, size) },
		"PutFile":   func() (*files.Object, error) { return e.st.PutFile(ctx, "w", src) },
	} {
		if _, err := put(); files.CodeOf(err) != files.CodeTooLarge {
			t.Errorf("%s above the inline limit: %v, want TOO_LARGE", name, err)
		}
	}
	if calls := e.calls(); slices.ContainsFunc(calls, func(c string) bool { return strings.HasPrefix(c, "files.write.") }) {
		t.Errorf("writes sent: %v", calls)
	}
	if _, err := e.st.Put(ctx, "w", data[:inline]); err != nil {
		t.Errorf("Put at the inline limit: %v", err)
	}
}
