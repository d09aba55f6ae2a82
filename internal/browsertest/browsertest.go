//go:build browser

// Package browsertest starts a headless Chromium for tests (Debian's
// package chromium, or the binary in $CHROMIUM) driven by chromedp, and
// saves screenshots. Its files build with the tag browser only, so that
// chromedp is compiled for the browser tests alone:
//
//	go test -race -tags browser ./platformtest/internal/console/ ./cmd/flockd/
//
// Screenshots go to the test's temp dir (named in the log) and, when
// $CONSOLE_SCREENSHOTS names a directory, there too.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Timeout bounds one browser test.
const Timeout = 90 * time.Second

// Start starts a headless Chromium for the test and returns its context;
// the browser ends with the test.
func Start(t *testing.T) context.Context {
	t.Helper()
	path := os.Getenv("CHROMIUM")
	if path == "" {
		for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
			if p, err := exec.LookPath(name); err == nil {
				path = p
				break
			}
		}
	}
	if path == "" {
		t.Fatal("no Chromium: install Debian's chromium (apt-get install chromium) or set $CHROMIUM")
	}
	// A fresh profile of our own: Chromium's helpers may still write to it
	// while it closes, which t.TempDir's cleanup would count as a failure.
	profile, err := os.MkdirTemp("", "console-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	actx, acancel := chromedp.NewExecAllocator(ctx, opts...)
	bctx, bcancel := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(func() {
		_ = chromedp.Cancel(bctx) // closes the browser and waits for it
		bcancel()
		acancel()
		cancel()
		_ = os.RemoveAll(profile)
	})
	if err := chromedp.Run(bctx); err != nil {
		t.Fatalf("start Chromium %s: %v", path, err)
	}
	return bctx
}

// Shots saves screenshots of a test.
type Shots struct {
	t   *testing.T
	dir string
}

// NewShots returns the screenshots of t, in a temp dir it logs.
func NewShots(t *testing.T) *Shots {
	dir := filepath.Join(t.TempDir(), "screenshots")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return &Shots{t: t, dir: dir}
}

// Take saves a screenshot of the viewport as name.png.
func (s *Shots) Take(ctx context.Context, name string) {
	s.t.Helper()
	var png []byte
	if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		s.t.Fatalf("screenshot %s: %v", name, err)
	}
	dirs := []string{s.dir}
	if extra := os.Getenv("CONSOLE_SCREENSHOTS"); extra != "" {
		dirs = append(dirs, extra)
	}
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, name+".png"), png, 0o644); err != nil {
			s.t.Fatal(err)
		}
	}
}

// Run runs chromedp actions, failing the test on error.
func Run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
