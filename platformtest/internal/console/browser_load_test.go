//go:build browser

package console_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/browsertest"
	"github.com/flockgo/ironflock/platformtest"
)

// TestBrowserTrafficFinishesLoading: /traffic, whose live part stays
// connected, finishes loading in headless Chromium run as scripts run it
// (--dump-dom with --virtual-time-budget, which waits until the network
// is idle): Chromium prints the page with its live part open and exits.
// An event stream kept the page loading for ever.
func TestBrowserTrafficFinishesLoading(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	path := os.Getenv("CHROMIUM")
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path != "" {
			break
		}
		path, _ = exec.LookPath(name)
	}
	if path == "" {
		t.Fatal("no Chromium: install Debian's chromium (apt-get install chromium) or set $CHROMIUM")
	}
	profile, err := os.MkdirTemp("", "console-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(profile)
	// The timeout bounds a Chromium that hangs: it is the failure, not a
	// measure.
	ctx, cancel := context.WithTimeout(context.Background(), browsertest.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+profile, "--dump-dom", "--virtual-time-budget=3000", w.p.HTTPURL()+"/traffic")
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("Chromium did not finish loading /traffic within %v", browsertest.Timeout)
	}
	if err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, out)
	}
	page := string(out)
	for _, want := range []string{`id="live-traffic"`, `data-state="open"`, "Recorded inbound messages"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page Chromium loaded lacks %q:\n%s", want, page)
		}
	}
}
