// This file holds the wait a router asks for when it refuses a connection
// attempt: a WebSocket upgrade answered 503 (Service Unavailable) or 429
// (Too Many Requests) with Retry-After, as flockd answers while too many
// links await authentication. The client's supervisor waits that long
// before its next attempt instead of its own cadence.

package engine

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// retryAfterError is a refused upgrade whose answer said when to come
// back.
type retryAfterError struct {
	err   error
	after time.Duration
}

func (e *retryAfterError) Error() string { return e.err.Error() }
func (e *retryAfterError) Unwrap() error { return e.err }

// RetryAfter returns the wait the router asked for when it refused the
// connection attempt that ended with err, and whether it asked: an upgrade
// answered 503 or 429 with Retry-After in seconds. (An HTTP date, which
// the header may also hold, is not read: it would link the date parsing
// into every device program for a form routers refusing joins do not use.)
func RetryAfter(err error) (time.Duration, bool) {
	var ra *retryAfterError
	if errors.As(err, &ra) {
		return ra.after, true
	}
	return 0, false
}

// retryAfter reads the Retry-After of a refused upgrade's answer.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusServiceUnavailable && resp.StatusCode != http.StatusTooManyRequests {
		return 0, false
	}
	v := strings.TrimSpace(resp.Header.Get("Retry-After"))
	if v == "" {
		return 0, false
	}
	secs, err := strconv.ParseUint(v, 10, 32)
	if err != nil {
		return 0, false
	}
	return time.Duration(secs) * time.Second, true
}
