package main

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// TestServeREST makes the README's curl call against the demo:
//
//	curl -H "Authorization: Bearer alice-token" http://127.0.0.1:8080/v1/platform/devices
func TestServeREST(t *testing.T) {
	f, _ := serveInBackground(t)
	rsp, body := apiGet(t, f.HTTPURL+"/v1/platform/devices", f.Tokens["alice"])
	if rsp.StatusCode != http.StatusOK || rsp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %v: %s", rsp.StatusCode, rsp.Header, body)
	}
	var devices []struct {
		Name     string `json:"name"`
		SwarmKey int    `json:"swarm_key"`
		Status   string `json:"status"`
	}
	if err := json.Unmarshal(body, &devices); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	if len(devices) != 2 || devices[0].Name != "sensor-1" || devices[1].Name != "sensor-2" || devices[0].Status != "DISCONNECTED" {
		t.Errorf("devices %s", body)
	}
}

// apiGet sends GET url with a bearer token and returns the answer, its
// body read.
func apiGet(t *testing.T, url, token string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer rsp.Body.Close()
	body, err := io.ReadAll(rsp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rsp, body
}
