// This file holds direct transfers: an HTTP PUT to an upload URL and an
// HTTP GET of a read URL, both streamed (nothing is held in memory but a
// copy buffer), with Content-Length on uploads (never chunked encoding),
// identity encoding on downloads, the device's Date on both (the object
// store refuses a clock more than 15 minutes off), progress, and the
// mapping of failures to codes. Presigned URLs never appear in errors:
// they are bearer secrets.

package files

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// copyBufferSize is the buffer of a direct transfer.
const copyBufferSize = 256 << 10

// progress counts the bytes of a transfer and reports them.
type progress struct {
	fn    func(done, total int64)
	done  int64
	total int64
}

func (p *progress) add(n int) {
	p.done += int64(n)
	if p.fn != nil && n > 0 {
		p.fn(p.done, p.total)
	}
}

// uploadBody reads exactly the announced size from the caller's reader,
// counting, and remembers why it stopped.
type uploadBody struct {
	r    io.Reader
	left int64
	p    *progress
	err  error // the reader's own error, or a short read
}

func (b *uploadBody) Read(buf []byte) (int, error) {
	if b.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(buf)) > b.left {
		buf = buf[:b.left]
	}
	n, err := b.r.Read(buf)
	b.left -= int64(n)
	b.p.add(n)
	switch {
	case err == io.EOF && b.left > 0:
		b.err = invalidArg("the reader ended %d bytes before the announced size", b.left)
		return n, b.err
	case err != nil && err != io.EOF:
		b.err = fmt.Errorf("reading the object: %w", err)
		return n, b.err
	}
	if b.left == 0 {
		return n, io.EOF
	}
	return n, nil
}

// putHTTP uploads size bytes of r to an upload URL with the minted
// headers.
func (s *Store) putHTTP(ctx context.Context, method, rawURL string, headers map[string]string, r io.Reader, size int64, p *progress) error {
	body := &uploadBody{r: r, left: size, p: p}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		return newError(CodeInternal, "the upload URL is malformed")
	}
	req.ContentLength = size
	if size == 0 {
		req.Body = http.NoBody
	}
	req.GetBody = nil
	for k, v := range headers {
		if strings.EqualFold(k, "Host") {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	if req.Header.Get("Date") == "" {
		req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		if body.err != nil && ctx.Err() == nil {
			return body.err
		}
		return transportError(ctx, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return failedAnswer(resp)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return nil
}

// failedAnswer reads an error answer of the object store.
func failedAnswer(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	return httpFailure(resp.StatusCode, b)
}

// errNotStarted marks a direct read that failed before any byte arrived,
// so that a ranged read through the router may take over.
type errNotStarted struct{ err error }

func (e *errNotStarted) Error() string { return e.err.Error() }
func (e *errNotStarted) Unwrap() error { return e.err }

// getHTTP downloads a read URL into w and returns the object's metadata
// as the store sent it.
func (s *Store) getHTTP(ctx context.Context, rawURL string, w io.Writer, p *progress) (Object, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return Object{}, newError(CodeInternal, "the read URL is malformed")
	}
	req.Header.Set("Accept-Encoding", "identity")
	req.Header.Set("Date", time.Now().UTC().Format(http.TimeFormat))
	resp, err := s.hc.Do(req)
	if err != nil {
		return Object{}, &errNotStarted{transportError(ctx, err)}
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return Object{}, failedAnswer(resp)
	}
	o := Object{
		Size:        resp.ContentLength,
		ETag:        strings.Trim(resp.Header.Get("ETag"), `"`),
		ContentType: resp.Header.Get("Content-Type"),
	}
	if t, err := http.ParseTime(resp.Header.Get("Last-Modified")); err == nil {
		o.LastModified = t.UTC()
	}
	if o.Size >= 0 {
		p.total = o.Size
	}
	n, err := copyCounting(w, resp.Body, p)
	switch {
	case err != nil && ctx.Err() != nil:
		return Object{}, ctx.Err()
	case errors.Is(err, errWrite):
		return Object{}, err
	case err != nil:
		return Object{}, newError(CodeInternal, "transfer interrupted after %d of %s bytes: %v", n, sizeText(o.Size), err)
	case o.Size >= 0 && n != o.Size:
		return Object{}, newError(CodeInternal, "transfer ended after %d of %d bytes", n, o.Size)
	}
	o.Size = n
	return o, nil
}

// errWrite marks a failure of the caller's writer.
var errWrite = errors.New("writing the object")

// copyCounting copies src to dst with a large buffer, reporting progress;
// a failure of dst wraps errWrite.
func copyCounting(dst io.Writer, src io.Reader, p *progress) (int64, error) {
	buf := make([]byte, copyBufferSize)
	var n int64
	for {
		m, rerr := src.Read(buf)
		if m > 0 {
			if _, werr := dst.Write(buf[:m]); werr != nil {
				return n, fmt.Errorf("%w: %w", errWrite, werr)
			}
			n += int64(m)
			p.add(m)
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}

func sizeText(n int64) string {
	if n < 0 {
		return "?"
	}
	return strconv.FormatInt(n, 10)
}
