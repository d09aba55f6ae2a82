package console_test

import (
	"html"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// TestOverviewStorage: the overview says where the world is kept (memory,
// or the data folder and its size), how many rows and file objects are
// kept (from whichever store holds them), and how full the authentication
// log is.
func TestOverviewStorage(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	_, body := w.get(t, "/")
	for _, want := range []string{"In memory: nothing is kept after the platform stops", "6 table rows and 1 file objects kept",
		"The authentication log holds 0 attempts (at most 10000)"} {
		if !strings.Contains(body, want) {
			t.Errorf("the overview lacks %q:\n%s", want, body)
		}
	}

	dir := filepath.Join(t.TempDir(), "data")
	p := platformtest.New(t, platformtest.WithConsole(platformtest.Console{}), platformtest.WithDataDir(dir))
	in := p.Install(p.AddDevice("d"), p.AddApp("a", dataTemplate), platformtest.Dev)
	if err := p.InsertRows(in, "readings", map[string]any{"tsp": t0, "sensor": "s", "celsius": 1.0}); err != nil {
		t.Fatal(err)
	}
	res, err := http.Get(p.HTTPURL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	page := html.UnescapeString(string(b))
	re := regexp.MustCompile(`Data folder <code>` + regexp.QuoteMeta(p.DataDir()) + `</code>, [0-9.]+ KiB on disk;\s+1 table rows and 0 file objects kept`)
	if !re.MatchString(page) {
		t.Errorf("the overview does not show the folder:\n%s", page)
	}

	// In memory with a bound on the rows: the overview says when it is
	// reached.
	p = platformtest.New(t, platformtest.WithConsole(platformtest.Console{}), platformtest.WithMemoryRowLimit(1))
	in = p.Install(p.AddDevice("d"), p.AddApp("a", dataTemplate), platformtest.Dev)
	for i := range 2 {
		err := p.InsertRows(in, "readings", map[string]any{"tsp": t0.Add(time.Duration(i) * time.Second), "sensor": "s", "celsius": 1.0})
		if (err != nil) != (i == 1) {
			t.Fatalf("row %d: %v", i, err)
		}
	}
	res, err = http.Get(p.HTTPURL() + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if b, err = io.ReadAll(res.Body); err != nil {
		t.Fatal(err)
	}
	if want := "1 table rows and 0 file objects kept. Memory holds at most 1 rows: full, appends are refused with storage_full."; !strings.Contains(stripTags(string(b)), want) {
		t.Errorf("the overview lacks %q:\n%s", want, b)
	}

	// With the tables in PostgreSQL the rows counted are PostgreSQL's.
	if dbURL := storetest.PostgresURL(t); dbURL != "" {
		t.Run("store=postgres", func(t *testing.T) {
			w := sqlWorld(t, dbURL)
			_, page := w.get(t, "/")
			if want := "3 table rows and 0 file objects kept"; !strings.Contains(stripTags(page), want) {
				t.Errorf("the overview lacks %q:\n%s", want, page)
			}
		})
	}
}

// stripTags removes the HTML tags of a page and unescapes it.
func stripTags(page string) string {
	return html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(page, ""))
}
