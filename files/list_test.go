package files_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/internal/wire"
)

// store seeds the default namespace with the keys.
func (e *env) store(keys ...string) {
	for _, k := range keys {
		e.p.StoreFile(e.inst.Realm(), "default", k, []byte(k), "")
	}
}

func objectKeys(objs []files.Object) []string {
	out := []string{}
	for _, o := range objs {
		out = append(out, o.Key)
	}
	return out
}

func TestList(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	e.store("a.jpg", "docs/1.pdf", "docs/2.pdf", "docs/old/3.pdf", "z.txt")
	page, err := e.st.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.jpg", "z.txt"}, objectKeys(page.Objects)); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"docs/"}, page.Prefixes); diff != "" {
		t.Errorf("prefixes (-want +got):\n%s", diff)
	}
	if page.IsTruncated || page.Cursor != "" {
		t.Errorf("page %+v", page)
	}
	// Listings infer the content type from the extension.
	if page.Objects[0].ContentType != "image/jpeg" || page.Objects[1].ContentType != "application/octet-stream" {
		t.Errorf("content types %q %q", page.Objects[0].ContentType, page.Objects[1].ContentType)
	}
	if page.Objects[0].URL == "" {
		t.Errorf("no URL")
	}

	page, err = e.st.List(ctx, files.Prefix("docs/"))
	if err != nil || !slices.Equal(objectKeys(page.Objects), []string{"docs/1.pdf", "docs/2.pdf"}) || !slices.Equal(page.Prefixes, []string{"docs/old/"}) {
		t.Errorf("folder docs/: %+v, %v", page, err)
	}
	page, err = e.st.List(ctx, files.Delimiter(""))
	if err != nil || len(page.Objects) != 5 || len(page.Prefixes) != 0 {
		t.Errorf("flat: %+v, %v", page, err)
	}

	// Pages: objects and prefixes share them; the cursor continues.
	var got []string
	cursor := ""
	for i := 0; ; i++ {
		page, err := e.st.List(ctx, files.Limit(2), files.Cursor(cursor))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, objectKeys(page.Objects)...)
		got = append(got, page.Prefixes...)
		if !page.IsTruncated {
			break
		}
		cursor = page.Cursor
		if i > 5 {
			t.Fatal("no end")
		}
	}
	slices.Sort(got)
	if diff := cmp.Diff([]string{"a.jpg", "docs/", "z.txt"}, got); diff != "" {
		t.Errorf("paged (-want +got):\n%s", diff)
	}
	// The delimiter is sent only when set: once, by the flat listing.
	var withDelim int
	for _, m := range e.p.Calls() {
		if m.URI != wire.FilesList {
			continue
		}
		if _, has := m.Args[0].(map[string]any)[wire.FieldDelimiter]; has {
			withDelim++
		}
	}
	if withDelim != 1 {
		t.Errorf("%d listings sent a delimiter, want 1", withDelim)
	}
}

// TestIter pages through more than three pages, and hands a folder prefix
// to the server without its "/".
func TestIter(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	var want []string
	for i := range 10 {
		k := fmt.Sprintf("logs/%02d.txt", i)
		want = append(want, k)
		e.store(k)
	}
	e.store("logs.txt", "logsheet/x", "other/y")
	e.p.ClearRecorded()
	var got []string
	for o, err := range e.st.Iter(ctx, files.Prefix("logs/"), files.Limit(3)) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, o.Key)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Iter (-want +got):\n%s", diff)
	}
	var pages int
	for _, m := range e.p.Calls() {
		if m.URI == wire.FilesList {
			pages++
			req := m.Args[0].(map[string]any)
			if req[wire.FieldPrefix] != "logs" || req[wire.FieldDelimiter] != "" {
				t.Errorf("request %v: want prefix logs, flat", req)
			}
		}
	}
	if pages < 4 {
		t.Errorf("%d pages, want more than three", pages)
	}

	// Breaking out stops paging.
	e.p.ClearRecorded()
	for range e.st.Iter(ctx, files.Limit(2)) {
		break
	}
	if n := len(e.p.Calls()); n != 1 {
		t.Errorf("%d calls after break, want 1", n)
	}
	// Errors end the sequence.
	var errs int
	for _, err := range e.st.Iter(ctx, files.Namespace("nope")) {
		mustCode(t, err, files.CodeNoSuchNamespace)
		errs++
	}
	if errs != 1 {
		t.Errorf("%d errors", errs)
	}
}
