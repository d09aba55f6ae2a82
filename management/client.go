// This file holds the Client: its construction, options and the one
// function that sends a request and decodes the answer.

package management

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// DefaultPrefix is the path of the API below the server's root URL.
const DefaultPrefix = "/v1/platform"

// maxAnswerBytes bounds the answer body the client reads.
const maxAnswerBytes = 64 << 20

// Client calls the management REST API with a user's bearer token. It is
// safe for concurrent use.
type Client struct {
	base  string // root URL + prefix, without a trailing slash
	token string
	hc    *http.Client
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sets the HTTP client (default http.DefaultClient).
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.hc = hc
		}
	}
}

// New returns a client of the API at baseURL, the server's root URL
// ("http://127.0.0.1:8080"; DefaultPrefix is appended) or a URL that ends
// with the API prefix already (".../v1/platform" or ".../v1/ironflock"),
// authenticating with the bearer token.
func New(baseURL, token string, opts ...Option) *Client {
	base := strings.TrimRight(baseURL, "/")
	if !strings.HasSuffix(base, "/v1/platform") && !strings.HasSuffix(base, "/v1/ironflock") {
		base += DefaultPrefix
	}
	c := &Client{base: base, token: token, hc: http.DefaultClient}
	for _, o := range opts {
		o(c)
	}
	return c
}

// BaseURL returns the URL every route is relative to, such as
// http://127.0.0.1:8080/v1/platform.
func (c *Client) BaseURL() string { return c.base }

// call is one request.
type call struct {
	method string
	path   string     // relative to base, escaped
	query  url.Values // may be nil
	body   any        // JSON-encoded when not nil
	ok     []int      // success statuses
	out    any        // decoded from a success body when not nil
}

// do sends a request and decodes the answer; it returns the status and
// the header of a success.
func (c *Client) do(ctx context.Context, k call) (int, http.Header, error) {
	op := k.method + " " + k.path
	u := c.base + k.path
	if len(k.query) > 0 {
		u += "?" + k.query.Encode()
	}
	var body io.Reader
	if k.body != nil {
		b, err := json.Marshal(k.body)
		if err != nil {
			return 0, nil, fmt.Errorf("management: %s: encode the body: %w", op, err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, k.method, u, body)
	if err != nil {
		return 0, nil, fmt.Errorf("management: %s: %w", op, err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	rsp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("management: %s: %w", op, err)
	}
	defer rsp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(rsp.Body, maxAnswerBytes))
	if err != nil {
		return 0, nil, fmt.Errorf("management: %s: read the answer: %w", op, err)
	}
	if !contains(k.ok, rsp.StatusCode) {
		return 0, nil, fmt.Errorf("management: %s: %w", op, errorFrom(rsp.StatusCode, b))
	}
	if k.out != nil {
		if err := json.Unmarshal(b, k.out); err != nil {
			return 0, nil, fmt.Errorf("management: %s: decode the answer (%d): %w", op, rsp.StatusCode, err)
		}
	}
	return rsp.StatusCode, rsp.Header, nil
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// keyPath builds a path from a format of %d verbs and keys.
func keyPath(format string, keys ...int) string {
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	return fmt.Sprintf(format, args...)
}
