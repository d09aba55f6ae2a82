//go:build browser

package main

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/flockgo/ironflock/internal/browsertest"
)

// TestBrowserDemo: the demo's Files page shows its image and its Agents
// page a tool the demo device answers from the console.
func TestBrowserDemo(t *testing.T) {
	p := serveWithPlatform(t, "-console-write")
	ctx := browsertest.Start(t)
	sh := browsertest.NewShots(t)
	base := p.HTTPURL()
	var width int
	var files string
	browsertest.Run(t, ctx, "files", chromedp.Navigate(base+"/files/realm-1-1-dev"), chromedp.WaitVisible("#objects img.thumb", chromedp.ByQuery),
		chromedp.Poll(`document.querySelector("#objects img.thumb").complete`, nil),
		chromedp.Evaluate(`document.querySelector("#objects img.thumb").naturalWidth`, &width),
		chromedp.Text("#objects", &files, chromedp.ByQuery))
	if width != 96 {
		t.Errorf("the snapshot is %d px wide, want the demo's 96", width)
	}
	for _, key := range []string{"sensor-2/2026-01-01T08-00.png", "calibration/sensor-2.json", "README.txt"} {
		if !strings.Contains(files, key) {
			t.Errorf("the demo's files lack %s:\n%s", key, files)
		}
	}
	sh.Take(ctx, "demo-files")

	var tools string
	browsertest.Run(t, ctx, "agents", chromedp.Navigate(base+"/agents"), chromedp.WaitVisible("table.tools", chromedp.ByQuery),
		chromedp.Text("main", &tools, chromedp.ByQuery))
	if !strings.Contains(tools, "read_sensor") || !strings.Contains(tools, "sensor-2") {
		t.Errorf("the agents page:\n%s", tools)
	}
	sh.Take(ctx, "demo-agents")
	var answer string
	browsertest.Run(t, ctx, "call read_sensor", chromedp.Navigate(base+"/agents/realm-1-1-dev/2/assistant/read_sensor"),
		chromedp.WaitVisible("#tool-form", chromedp.ByQuery), chromedp.SetValue(`select[name="p.unit"]`, "F", chromedp.ByQuery),
		chromedp.Click("#call", chromedp.ByQuery), chromedp.WaitVisible("#answer", chromedp.ByQuery),
		chromedp.Text("#answer", &answer, chromedp.ByQuery))
	if !strings.Contains(answer, `"temperature": 74.3`) || !strings.Contains(answer, `"device": "sensor-2"`) {
		t.Errorf("read_sensor answered:\n%s", answer)
	}
	sh.Take(ctx, "demo-tool")

	// The table page of the README's screenshot (docs/console.png).
	var ticks int
	browsertest.Run(t, ctx, "the demo's table", chromedp.Navigate(base+"/tables/realm-1-1-dev/sensordata?column=temperature"),
		chromedp.WaitVisible("#chart", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#chart text.tick").length`, &ticks))
	if ticks < 6 {
		t.Errorf("%d ticks on the demo's chart", ticks)
	}
	sh.Take(ctx, "console")
}
