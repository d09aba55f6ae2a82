package engine

import (
	"net/http"
	"testing"
	"time"
)

// TestRetryAfterRead: Retry-After is read from a 503 or 429, in seconds
// only there.
func TestRetryAfterRead(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	cases := []struct {
		name   string
		status int
		header string
		want   time.Duration
		ok     bool
	}{
		{"503 seconds", 503, "3", 3 * time.Second, true},
		{"429 seconds", 429, " 12 ", 12 * time.Second, true},
		{"503 date (not read)", 503, now.Add(90 * time.Second).Format(http.TimeFormat), 0, false},
		{"503 without", 503, "", 0, false},
		{"503 garbage", 503, "soon", 0, false},
		{"503 negative", 503, "-1", 0, false},
		{"502 seconds", 502, "3", 0, false},
		{"401 seconds", 401, "3", 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			resp := &http.Response{StatusCode: tc.status, Header: http.Header{}}
			if tc.header != "" {
				resp.Header.Set("Retry-After", tc.header)
			}
			got, ok := retryAfter(resp)
			if got != tc.want || ok != tc.ok {
				t.Errorf("retryAfter = %v, %v; want %v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
	err := &retryAfterError{err: http.ErrHandlerTimeout, after: 2 * time.Second}
	if d, ok := RetryAfter(err); !ok || d != 2*time.Second {
		t.Errorf("RetryAfter = %v, %v", d, ok)
	}
	if _, ok := RetryAfter(http.ErrHandlerTimeout); ok {
		t.Error("RetryAfter of another error reported a wait")
	}
}
