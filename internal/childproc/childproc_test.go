package childproc

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestTail: the tail keeps the newest Max bytes, whatever the writes'
// sizes.
func TestTail(t *testing.T) {
	tl := &Tail{Max: 8}
	for i := range 5 {
		_, _ = fmt.Fprintf(tl, "line%d\n", i)
	}
	if got := tl.String(); got != "3\nline4\n" {
		t.Errorf("tail %q, want the newest 8 bytes %q", got, "3\nline4\n")
	}
}

// TestHTTPOK: only a 200 answer is ready; an unreachable address is not.
func TestHTTPOK(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/ready" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	ctx := context.Background()
	if !HTTPOK(ctx, srv.URL+"/ready") {
		t.Error("a 200 answer was not taken as ready")
	}
	if HTTPOK(ctx, srv.URL+"/other") {
		t.Error("a 503 answer was taken as ready")
	}
	srv.Close()
	if HTTPOK(ctx, srv.URL+"/ready") {
		t.Error("a closed server was taken as ready")
	}
}
