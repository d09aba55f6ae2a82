// Package childproc holds what the project's commands that start flockd
// as a child process (flockbench, flocksim) share: the tail of its log,
// the readiness probe and the environment file it writes.
package childproc

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"sync"
)

// Tail keeps the last Max bytes written to it (a child's log), for the
// message of a child that failed.
type Tail struct {
	Max int

	mu sync.Mutex
	b  bytes.Buffer
}

// Write keeps p, dropping the oldest bytes beyond Max.
func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.Max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

// String returns what is kept.
func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// HTTPOK reports whether GET url answers 200.
func HTTPOK(ctx context.Context, url string) bool {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return false
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// EnvFile is the part of the environment file flockd writes (-env-file)
// that the commands read: where it listens, and each installation's
// device environment.
type EnvFile struct {
	WSURL         string `json:"ws_url"`
	HTTPURL       string `json:"http_url"`
	Installations []struct {
		Device string            `json:"device"`
		App    string            `json:"app"`
		Stage  string            `json:"stage"`
		Env    map[string]string `json:"env"`
	} `json:"installations"`
}
