package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// TestServeToolRoute makes the call of docs/flockd.md §6 against flockd
// serving examples/agent/flockd.yml, with a device (here a raw WAMP
// session, as an app in any language would be) serving the tool:
//
//	curl -H "Authorization: Bearer alice-token" \
//	     -d '{"arguments":{"sensor":"spindle","unit":"F"},"convention":"positional"}' \
//	     http://127.0.0.1:8080/v1/flockd/devices/1/apps/1/agents/line_assistant/tools/read_temperature
func TestServeToolRoute(t *testing.T) {
	leakcheck.Check(t)
	f, _ := serveInBackground(t, "-config", "../../examples/agent/flockd.yml")
	if len(f.Installations) != 1 {
		t.Fatalf("installations %+v", f.Installations)
	}
	dev := joinWithEnv(t, f.WSURL, f.Installations[0].Env)
	if err := dev.Register("1.1.1.DEV.read_temperature", func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
		return client.InvokeResult{Args: wamp.List{map[string]any{"sensor": inv.Arguments[0], "unit": inv.Arguments[1], "value": 106.7}}}
	}, nil); err != nil {
		t.Fatal(err)
	}
	status, b := postTool(t, f.HTTPURL+"/v1/flockd/devices/1/apps/1/agents/line_assistant/tools/read_temperature",
		f.Tokens["alice"], `{"arguments":{"sensor":"spindle","unit":"F"},"convention":"positional"}`)
	var answer struct {
		OK        bool           `json:"ok"`
		Procedure string         `json:"procedure"`
		Args      []any          `json:"args"`
		Result    map[string]any `json:"result"`
	}
	if err := json.Unmarshal(b, &answer); err != nil || status != http.StatusOK || !answer.OK ||
		answer.Procedure != "1.1.1.DEV.read_temperature" || answer.Result["value"] != 106.7 || answer.Result["unit"] != "F" {
		t.Errorf("%d %s", status, b)
	}
}

// postTool posts body to flockd's tool route url as the user of token and
// returns the answer's status and body.
func postTool(t *testing.T, url, token, body string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer rsp.Body.Close()
	b, err := io.ReadAll(rsp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rsp.StatusCode, b
}
