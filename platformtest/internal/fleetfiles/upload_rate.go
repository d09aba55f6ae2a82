// This file holds the pace an upload's body must keep (UploadRate): the
// server's ReadHeaderTimeout bounds the headers only, so a client that
// trickles its body (1 KiB every half second) would hold its connection
// and its request for as long as it likes. A body must come at an average
// of at least the minimum rate after a grace period; one slower is cut
// with S3's 408 RequestTimeout and nothing of it is kept.

package fleetfiles

import (
	"errors"
	"io"
	"net/http"
	"os"
	"time"
)

// The default pace of uploads: generous (a phone link does 100 times
// more), and a body that trickles below it is cut after about half a
// minute.
const (
	DefaultUploadMinRate = 16 << 10 // bytes per second, on average
	DefaultUploadGrace   = 30 * time.Second
)

// UploadRate is the pace an upload's body must keep: every byte read by
// Grace plus the time MinRate needs for the bytes before it. MinRate ≤ 0
// keeps no bound.
type UploadRate struct {
	MinRate int64 // bytes per second
	Grace   time.Duration
}

// pacedBody is a request body whose reads must keep an UploadRate, by the
// connection's read deadline.
type pacedBody struct {
	body  io.ReadCloser
	rc    *http.ResponseController
	rate  UploadRate
	start time.Time
	read  int64
}

// paced returns r's body bound to rate, or the body itself without a
// bound or when the connection takes no deadline.
func paced(w http.ResponseWriter, r *http.Request, rate UploadRate) io.ReadCloser {
	if rate.MinRate <= 0 {
		return r.Body
	}
	rc := http.NewResponseController(w)
	if err := rc.SetReadDeadline(time.Now().Add(rate.Grace)); err != nil {
		return r.Body
	}
	return &pacedBody{body: r.Body, rc: rc, rate: rate, start: time.Now()}
}

func (p *pacedBody) Read(b []byte) (int, error) {
	due := p.rate.Grace + time.Duration(float64(p.read)/float64(p.rate.MinRate)*float64(time.Second))
	_ = p.rc.SetReadDeadline(p.start.Add(due))
	n, err := p.body.Read(b)
	p.read += int64(n)
	return n, err
}

func (p *pacedBody) Close() error {
	_ = p.rc.SetReadDeadline(time.Time{})
	return p.body.Close()
}

// tooSlow reports a body read that failed because the body came slower
// than its UploadRate.
func tooSlow(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

// errTooSlow is S3's answer to a body that stopped coming.
var errTooSlow = &s3Error{http.StatusRequestTimeout, "RequestTimeout",
	"Your socket connection to the server was not read from or written to within the timeout period: " +
		"the body came slower than the platform's minimum upload rate (flockd -upload-min-rate)."}
