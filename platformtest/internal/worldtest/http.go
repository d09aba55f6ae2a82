package worldtest

import (
	"encoding/base64"
	"io"
	"net/http"
	"strconv"
	"testing"
)

// Do sends an HTTP request and returns the status and the body.
func Do(t *testing.T, method, u string, body io.Reader, size int64, header map[string]string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = size
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// Itoa is n in decimal.
func Itoa(n int64) string { return strconv.FormatInt(n, 10) }

// B64 is s in standard base64, as the file service takes data.
func B64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
