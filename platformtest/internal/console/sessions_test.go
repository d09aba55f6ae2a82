package console_test

import (
	"strings"
	"testing"

	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// TestSessionsPaged: with 55 sessions joined, the sessions page lists
// one page of 50, says how many the realm has, pages to the rest and
// finds a session by device name and by authid.
func TestSessionsPaged(t *testing.T) {
	w, realm := newCappedWorld(t)
	const n = 55
	for i := range n {
		clienttest.Start(t, w.p.InstallationOf(1000+i, 3, platformtest.Dev))
	}
	get := func(path string) string { return w.page(t, path) }
	body := get("/sessions")
	if got := strings.Count(body, "data-session="); got != 50 {
		t.Errorf("the first page lists %d sessions, want 50", got)
	}
	for _, s := range []string{realm, "55 session(s), 50 on this page", "1–50 of 55", `rel="next" href="?page=2"`} {
		if !strings.Contains(body, s) {
			t.Errorf("the sessions page lacks %q", s)
		}
	}
	if got := strings.Count(get("/sessions?page=2"), "data-session="); got != 5 {
		t.Errorf("the second page lists %d sessions, want 5", got)
	}
	serial := w.p.InstallationOf(1042, 3, platformtest.Dev).Device().Serial()
	for _, q := range []string{"node-042", serial} {
		body := get("/sessions?q=" + q)
		if strings.Count(body, "data-session=") != 1 || !strings.Contains(body, `data-device="1042"`) {
			t.Errorf("a search for %s finds %d sessions", q, strings.Count(body, "data-session="))
		}
	}
	if body := get("/sessions?q=node-299"); !strings.Contains(body, "No session matches") {
		t.Error("a search for a device without a session finds one")
	}
}
