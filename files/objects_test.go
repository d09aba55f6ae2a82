package files_test

import (
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

func TestStatExistsDelete(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	put, err := e.st.Put(ctx, "m/1.json", []byte(`{"a":1}`), files.ContentType("application/json"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.st.Stat(ctx, "m/1.json")
	if err != nil {
		t.Fatal(err)
	}
	stored := e.p.FileObjects(e.inst.Realm())[0]
	want := files.Object{
		Namespace: "default", Key: "m/1.json", Size: 7, ETag: stored.ETag, ContentType: "application/json",
		LastModified: stored.LastModified.UTC().Truncate(1e6), ChecksumSHA256: stored.ChecksumSHA256, URL: put.URL,
	}
	if diff := cmp.Diff(want, *st); diff != "" {
		t.Errorf("Stat (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, *put); diff != "" {
		t.Errorf("Put (-want +got):\n%s", diff)
	}
	for key, want := range map[string]bool{"m/1.json": true, "m/2.json": false} {
		if got, err := e.st.Exists(ctx, key); err != nil || got != want {
			t.Errorf("Exists(%s) = %v, %v; want %v", key, got, err, want)
		}
	}
	if _, err := e.st.Exists(ctx, "x", files.Namespace("nope")); files.CodeOf(err) != files.CodeNoSuchNamespace {
		t.Errorf("Exists in an unknown namespace: %v", err)
	}
	for range 2 { // idempotent
		if err := e.st.Delete(ctx, "m/1.json"); err != nil {
			t.Fatal(err)
		}
	}
	_, err = e.st.Stat(ctx, "m/1.json")
	mustCode(t, err, files.CodeNoSuchObject)
	if !errors.Is(err, &files.Error{Code: files.CodeNoSuchObject}) {
		t.Errorf("errors.Is by code fails: %v", err)
	}
	var oe *client.OpError
	if !errors.As(err, &oe) || oe.Op != "files.Stat" || oe.URI != wire.FilesStat {
		t.Errorf("operation error %#v", oe)
	}
	if want := `ironflock: files.Stat "files.read.stat": default/m/1.json: NO_SUCH_OBJECT: `; len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
		t.Errorf("message %q, want it to start with %q", err, want)
	}
}

func TestCopyMove(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	realm := e.inst.Realm()
	e.p.StoreFile(realm, "default", "a.png", pattern(100), "image/png")
	o, err := e.st.Copy(ctx, "a.png", "b.png")
	if err != nil || o.Key != "b.png" || o.Namespace != "default" || o.Size != 100 || o.ContentType != "image/png" {
		t.Fatalf("Copy = %+v, %v", o, err)
	}
	o, err = e.st.Copy(ctx, "a.png", "c.png", files.ToNamespace("photos"))
	if err != nil || o.Namespace != "photos" || o.Key != "c.png" {
		t.Fatalf("Copy to photos = %+v, %v", o, err)
	}
	o, err = e.st.Move(ctx, "b.png", "moved.png", files.ToNamespace("archive"))
	if err != nil || o.Namespace != "archive" {
		t.Fatalf("Move = %+v, %v", o, err)
	}
	got := keys(e.p.FileObjects(realm))
	want := []string{"archive/moved.png", "default/a.png", "photos/c.png"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	// The destination's rules apply: photos takes images only.
	e.p.StoreFile(realm, "default", "notes.txt", []byte("hi"), "text/plain")
	_, err = e.st.Copy(ctx, "notes.txt", "notes.txt", files.ToNamespace("photos"))
	mustCode(t, err, files.CodeContentTypeNotAllowed)
	_, err = e.st.Copy(ctx, "missing", "x")
	mustCode(t, err, files.CodeNoSuchObject)
}

// TestMoveLeavesBothCopies: Move copies, then deletes; when the delete
// fails, both copies stay and Move says so.
func TestMoveLeavesBothCopies(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	realm := e.inst.Realm()
	e.p.StoreFile(realm, "default", "src", []byte("x"), "")
	e.p.Refuse(platformtest.Refusal{Kind: platformtest.KindCall, URI: wire.FilesDelete, Times: 1})
	o, err := e.st.Move(ctx, "src", "dst")
	mustCode(t, err, files.CodeNotAuthorized)
	if o == nil || o.Key != "dst" {
		t.Errorf("Move returned %+v with the error, want the copy", o)
	}
	var oe *client.OpError
	if !errors.As(err, &oe) || oe.URI != wire.FilesDelete {
		t.Errorf("error %v does not name the delete", err)
	}
	if got := keys(e.p.FileObjects(realm)); !slices.Equal(got, []string{"default/dst", "default/src"}) {
		t.Errorf("objects %v, want both copies", got)
	}
	var calls []string
	for _, c := range e.calls() {
		if c == wire.FilesCopy || c == wire.FilesDelete {
			calls = append(calls, c)
		}
	}
	if !slices.Equal(calls, []string{wire.FilesCopy, wire.FilesDelete}) {
		t.Errorf("calls %v, want copy then delete", calls)
	}
}

func keys(objs []platformtest.FileObject) []string {
	var out []string
	for _, o := range objs {
		out = append(out, o.Namespace+"/"+o.Key)
	}
	return out
}

// TestKeyNotUTF8: a key, destination or prefix that is not valid UTF-8 is
// refused before anything is sent (the client's encoder would turn the
// invalid bytes into U+FFFD, so "a\xffb" and "a\xfeb" would name one
// object): client.ErrInvalidArgument with the code INVALID_KEY.
func TestKeyNotUTF8(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	e.p.StoreFile(e.inst.Realm(), "default", "ok", []byte("x"), "")
	if _, err := e.st.Catalog(ctx); err != nil {
		t.Fatal(err)
	}
	e.p.ClearRecorded()
	const bad = "a\xffb"
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	first := func(seq iter.Seq2[files.Object, error]) error {
		for _, err := range seq {
			return err
		}
		return nil
	}
	for name, run := range map[string]func() error{
		"Put":       func() error { _, err := e.st.Put(ctx, bad, []byte("x")); return err },
		"Put other": func() error { _, err := e.st.Put(ctx, "a\xfeb", []byte("x")); return err },
		"PutReader": func() error { _, err := e.st.PutReader(ctx, bad, strings.NewReader("x"), 1); return err },
		"PutFile":   func() error { _, err := e.st.PutFile(ctx, bad, file); return err },
		"Get":       func() error { _, err := e.st.Get(ctx, bad); return err },
		"GetTo":     func() error { _, err := e.st.GetTo(ctx, bad, io.Discard); return err },
		"GetToFile": func() error { _, err := e.st.GetToFile(ctx, bad, file); return err },
		"Stat":      func() error { _, err := e.st.Stat(ctx, bad); return err },
		"Exists":    func() error { _, err := e.st.Exists(ctx, bad); return err },
		"Delete":    func() error { return e.st.Delete(ctx, bad) },
		"Copy":      func() error { _, err := e.st.Copy(ctx, bad, "x"); return err },
		"Copy to":   func() error { _, err := e.st.Copy(ctx, "ok", bad); return err },
		"Move":      func() error { _, err := e.st.Move(ctx, bad, "x"); return err },
		"Move to":   func() error { _, err := e.st.Move(ctx, "ok", bad); return err },
		"URL":       func() error { _, err := e.st.URL(ctx, bad, ""); return err },
		"ShareURL":  func() error { _, err := e.st.ShareURL(ctx, bad); return err },
		"UploadURL": func() error { _, err := e.st.UploadURL(ctx, bad); return err },
		"List":      func() error { _, err := e.st.List(ctx, files.Prefix(bad)); return err },
		"Iter":      func() error { return first(e.st.Iter(ctx, files.Prefix(bad))) },
	} {
		err := run()
		if !errors.Is(err, client.ErrInvalidArgument) || files.CodeOf(err) != files.CodeInvalidKey || !strings.Contains(err.Error(), "not valid UTF-8") {
			t.Errorf("%s: %v, want ErrInvalidArgument with INVALID_KEY", name, err)
		}
		var oe *client.OpError
		if !errors.As(err, &oe) || !strings.HasPrefix(oe.Op, "files.") {
			t.Errorf("%s: %v names no operation", name, err)
		}
	}
	if calls := e.calls(); len(calls) != 0 {
		t.Errorf("sent %v", calls)
	}
	if got := keys(e.p.FileObjects(e.inst.Realm())); !slices.Equal(got, []string{"default/ok"}) {
		t.Errorf("objects %v", got)
	}
}
