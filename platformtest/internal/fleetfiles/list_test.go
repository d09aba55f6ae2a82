package fleetfiles

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
)

func TestListEntries(t *testing.T) {
	ctx := context.Background()
	objs := memory.NewObjects(t.TempDir(), nil)
	defer objs.Close()
	b, err := objs.Bucket(ctx, "realm-1-2-dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a.txt", "docs/1", "docs/2", "docs/x/3", "docsy", "z"} {
		w, err := b.Create(ctx, 0)
		if err == nil {
			_, err = b.Put(ctx, store.Meta{Namespace: "default", Key: k}, w, 0)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	names := func(es []listEntry) []string {
		var out []string
		for _, e := range es {
			n := e.name
			if e.obj == nil {
				n += " (prefix)"
			}
			out = append(out, n)
		}
		return out
	}
	for _, tc := range []struct {
		prefix, delim, after string
		want                 []string
		visits               int // the keys under a common prefix are skipped
	}{
		{"", "/", "", []string{"a.txt", "docs/ (prefix)", "docsy", "z"}, 4},
		{"", "", "", []string{"a.txt", "docs/1", "docs/2", "docs/x/3", "docsy", "z"}, 6},
		{"", "/", "docs/", []string{"docsy", "z"}, 3},
		{"", "/", "a.txt", []string{"docs/ (prefix)", "docsy", "z"}, 4},
		{"docs/", "/", "", []string{"docs/1", "docs/2", "docs/x/ (prefix)"}, 3},
		{"", "s/", "", []string{"a.txt", "docs/ (prefix)", "docsy", "z"}, 4},
	} {
		visited := 0
		scan := func(from string, fn func(store.Object) (string, bool)) error {
			return b.List(ctx, "default", tc.prefix, from, func(o store.Object) (string, bool) {
				visited++
				return fn(o)
			})
		}
		got, err := listEntries(scan, tc.prefix, tc.delim, tc.after, 100)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tc.want, names(got)); diff != "" || visited != tc.visits {
			t.Errorf("prefix %q delim %q after %q: %d keys visited, want %d (-want +got):\n%s", tc.prefix, tc.delim, tc.after, visited, tc.visits, diff)
		}
	}
}

// FuzzCursor: a cursor decodes to the entry it was made from, and reading
// any text as a cursor never panics.
func FuzzCursor(f *testing.F) {
	f.Add("docs/1")
	f.Add("ü/ß=?&")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := decodeCursor(encodeCursor(s))
		if err != nil || got != s {
			t.Fatalf("cursor of %q decodes to %q, %v", s, got, err)
		}
		_, _ = decodeCursor(s)
	})
}

func TestParseDeleteAfter(t *testing.T) {
	for s, want := range map[string]time.Duration{
		"1 hour": time.Hour, "2 hours": 2 * time.Hour, "30 days": 30 * 24 * time.Hour, "1 week": 7 * 24 * time.Hour,
		"1 month": 30 * 24 * time.Hour, "2 years": 2 * 365 * 24 * time.Hour, "0 days": 0, "1 fortnight": 0,
		"99999999999 years": 0,
	} {
		if got := parseDeleteAfter(s); got != want {
			t.Errorf("parseDeleteAfter(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestContentTypeAllowed(t *testing.T) {
	for _, tc := range []struct {
		patterns []string
		ct       string
		ok       bool
	}{
		{[]string{"*/*"}, "anything/at-all", true},
		{[]string{"image/*"}, "image/png", true},
		{[]string{"image/*"}, "IMAGE/PNG", true},
		{[]string{"image/*"}, "imagery/png", false},
		{[]string{"application/pdf"}, "application/pdf; charset=binary", true},
		{[]string{"application/pdf"}, "application/pdfx", false},
		{[]string{"text/plain", "image/*"}, "text/csv", false},
	} {
		if got := contentTypeAllowed(tc.patterns, tc.ct); got != tc.ok {
			t.Errorf("contentTypeAllowed(%v, %q) = %v", tc.patterns, tc.ct, got)
		}
	}
}

func TestTypeByExtension(t *testing.T) {
	for key, want := range map[string]string{"a/b.JPG": "image/jpeg", "x.svg": "image/svg+xml", "x": "application/octet-stream", "x.tar.gz": "application/octet-stream"} {
		if got := typeByExtension(key); got != want {
			t.Errorf("typeByExtension(%q) = %q, want %q", key, got, want)
		}
	}
}
