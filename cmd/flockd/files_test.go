package main

import (
	"context"
	"encoding/base64"
	"io"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
)

// TestServeFiles uses the file service of flockd as an app in Python or
// JavaScript would: WAMP with JSON, base64 inline data, and a plain HTTP
// upload to a presigned URL. The config's files section applies.
func TestServeFiles(t *testing.T) {
	leakcheck.Check(t)
	config := filepath.Join(t.TempDir(), "flockd.yml")
	err := os.WriteFile(config, []byte(`projects:
  - {name: plant, swarm_key: 2, devices: [{name: press}]}
apps:
  - name: interop
    app_key: 26
    data_template: |
      data:
        tables: []
      files:
        namespaces:
          - {name: default}
          - {name: photos, contentTypes: ["image/*"]}
installations:
  - {project: plant, device: press, app: interop}
files:
  inline_max_bytes: 16
  presign: true
  quotas:
    - {project: plant, app: interop, stage: DEV, bytes: 1000}
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := serveInBackground(t, "-config", config)
	env := f.Installations[0].Env
	swarm, _ := strconv.Atoi(env[wire.EnvSwarmKey])
	app, _ := strconv.Atoi(env[wire.EnvAppKey])
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.ConnectNet(ctx, f.WSURL, client.Config{
		Realm:        wire.Realm(swarm, app, env[wire.EnvStage]),
		HelloDetails: wamp.Dict{"authid": env[wire.EnvAppAuthID]},
		AuthHandlers: map[string]client.AuthFunc{"wampcra": func(ch *wamp.Challenge) (string, wamp.Dict) {
			return crsign.RespondChallenge(env[wire.EnvAppAuthSecret], ch, nil), wamp.Dict{}
		}},
		Serialization: client.JSON,
		Logger:        log.New(io.Discard, "", 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	call := func(proc string, payload wamp.Dict) map[string]any {
		t.Helper()
		var args wamp.List
		if payload != nil {
			args = wamp.List{payload}
		}
		res, err := c.Call(ctx, proc, nil, args, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", proc, err)
		}
		env, _ := res.Arguments[0].(map[string]any)
		if env["success"] != true {
			t.Fatalf("%s: %v", proc, env)
		}
		p, _ := env["payload"].(map[string]any)
		return p
	}

	cat := call(wire.FilesNamespaces, nil)
	if n, _ := wamp.AsInt64(cat["inline_max_bytes"]); n != 16 || cat["public_base_url"] != f.HTTPURL {
		t.Errorf("catalog %v", cat)
	}
	if q, _ := wamp.AsInt64(cat["quota_bytes"]); q != 1000 {
		t.Errorf("quota %v", cat["quota_bytes"])
	}
	call(wire.FilesPut, wamp.Dict{"namespace": "default", "key": "hello.txt", "data": base64.StdEncoding.EncodeToString([]byte("hello"))})
	got := call(wire.FilesGet, wamp.Dict{"namespace": "default", "key": "hello.txt"})
	if got["data"] != base64.StdEncoding.EncodeToString([]byte("hello")) {
		t.Errorf("get %v", got)
	}

	// Above the inline limit: a presigned upload with a plain HTTP client.
	up := call(wire.FilesWriteURL, wamp.Dict{"namespace": "photos", "key": "shot.png", "content_type": "image/png", "size": 100})
	req, err := http.NewRequest(http.MethodPut, up["url"].(string), strings.NewReader(strings.Repeat("p", 100)))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range up["headers"].(map[string]any) {
		req.Header.Set(k, v.(string))
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("upload: %s", resp.Status)
	}
	st := call(wire.FilesStat, wamp.Dict{"namespace": "photos", "key": "shot.png"})
	if n, _ := wamp.AsInt64(st["size"]); n != 100 || st["content_type"] != "image/png" {
		t.Errorf("stat %v", st)
	}
	sh := call(wire.FilesReadURL, wamp.Dict{"namespace": "photos", "key": "shot.png"})
	resp, err = http.Get(sh["url"].(string))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(body) != 100 {
		t.Errorf("download: %s, %d bytes", resp.Status, len(body))
	}
	http.DefaultClient.CloseIdleConnections()
}
