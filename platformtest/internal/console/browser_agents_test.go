//go:build browser

// The Agents page in a real browser: which devices serve each tool, and
// a call offered only on those.

package console_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// TestBrowserAgentsServed: of the two devices running the app, only
// press-1 registers read_temperature; the Agents page offers the call on
// press-1 alone and says press-2 does not serve it, and press-2's form
// cannot call. Once press-2 registers too, the page offers both.
func TestBrowserAgentsServed(t *testing.T) {
	w := newWorld(t, platformtest.Console{Write: true})
	ctx := browser(t)
	sh := newShots(t)
	pctx := testCtx(t)
	answer := func(_ context.Context, _ *client.Invocation) (any, error) {
		return map[string]any{"celsius": 21.5}, nil
	}
	c1 := clienttest.Start(t, w.in1)
	if _, err := c1.RegisterDeviceFunction(pctx, "read_temperature", answer); err != nil {
		t.Fatal(err)
	}
	base := w.p.HTTPURL()
	row := `#tool-assistant-read_temperature`
	var links []string
	var notServing string
	run(t, ctx, "the agents page", chromedp.Navigate(base+"/agents"), chromedp.WaitVisible(row, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll("`+row+` td.served a")].map(a => a.getAttribute("href"))`, &links),
		chromedp.Text(row+` .tool-device[data-device="2"]`, &notServing, chromedp.ByQuery))
	sh.Take(ctx, "agents-served")
	if want := "/agents/" + w.realm + "/1/assistant/read_temperature"; len(links) != 1 || links[0] != want {
		t.Errorf("calls offered %q, want only %s", links, want)
	}
	if !strings.Contains(notServing, "press-2") || !strings.Contains(notServing, "does not serve it") {
		t.Errorf("press-2's entry says %q", notServing)
	}

	var disabled bool
	var answerText string
	run(t, ctx, "call on press-1", chromedp.Click(row+` a`, chromedp.ByQuery), chromedp.WaitVisible("#tool-form", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#call").disabled`, &disabled),
		chromedp.SetValue(`input[name="p.sensor"]`, "s1", chromedp.ByQuery),
		chromedp.Click("#call", chromedp.ByQuery), chromedp.WaitVisible("#answer", chromedp.ByQuery),
		chromedp.Text("#answer", &answerText, chromedp.ByQuery))
	if disabled || !strings.Contains(answerText, `"celsius": 21.5`) {
		t.Errorf("press-1: call disabled %v, answer %s", disabled, answerText)
	}

	var why string
	run(t, ctx, "press-2's form", chromedp.Navigate(base+"/agents/"+w.realm+"/2/assistant/read_temperature"),
		chromedp.WaitVisible("#not-served", chromedp.ByQuery), chromedp.Text("#not-served", &why, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#call").disabled`, &disabled))
	sh.Take(ctx, "tool-not-served")
	if !disabled || !strings.Contains(why, "press-2 does not serve this tool") || !strings.Contains(why, "1.2.1.DEV.read_temperature") {
		t.Errorf("press-2's form: call disabled %v, note %q", disabled, why)
	}

	c2 := clienttest.Start(t, w.in2)
	if _, err := c2.RegisterDeviceFunction(pctx, "read_temperature", answer); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "both serve", chromedp.Navigate(base+"/agents"), chromedp.WaitVisible(row, chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll("`+row+` td.served a")].map(a => a.textContent)`, &links))
	if strings.Join(links, ",") != "call on press-1,call on press-2" {
		t.Errorf("calls offered once both register: %q", links)
	}
}
