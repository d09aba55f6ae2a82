package fleetfiles_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestUploadTrickleCut: an upload whose body stops coming (1 KiB, then
// nothing) is cut once it is behind the minimum rate, with 408 or a
// closed connection, instead of holding its connection for ever; nothing
// of it is kept, and an upload at a normal pace works.
func TestUploadTrickleCut(t *testing.T) { backends.EachFileStore(t, testUploadTrickleCut) }

func testUploadTrickleCut(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s, platformtest.WithUploadMinRate(64<<10, 100*time.Millisecond))
	url := f.OK(t, wire.FilesWriteURL, map[string]any{"key": "slow.bin", "content_type": "application/octet-stream"})["url"].(string)
	body, feed := io.Pipe()
	defer feed.Close()
	go func() { _, _ = feed.Write(make([]byte, 1<<10)) }() // then nothing: the body trickles to a stop
	// The bound of the wait is the test's, not the server's: it fails only
	// when the server never cuts the upload.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, body)
	if err != nil {
		t.Fatal(err)
	}
	req.ContentLength = 1 << 20
	req.Header.Set("Content-Type", "application/octet-stream")
	rsp, err := http.DefaultClient.Do(req)
	if ctx.Err() != nil {
		t.Fatal("the trickling upload was not cut: it held its connection for a minute")
	}
	if err == nil {
		b, _ := io.ReadAll(rsp.Body)
		rsp.Body.Close()
		if rsp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "RequestTimeout") {
			t.Errorf("the trickling upload: %d %s, want 408 RequestTimeout", rsp.StatusCode, b)
		}
	}
	if objs := f.p.FileObjects(f.in.Realm()); len(objs) != 0 {
		t.Errorf("objects after the cut upload: %+v", objs)
	}
	ok := f.OK(t, wire.FilesWriteURL, map[string]any{"key": "fast.bin", "content_type": "application/octet-stream"})["url"].(string)
	if code, b, _ := worldtest.Do(t, http.MethodPut, ok, strings.NewReader(strings.Repeat("x", 256<<10)), 256<<10, map[string]string{"Content-Type": "application/octet-stream"}); code != http.StatusOK {
		t.Errorf("an upload at a normal pace: %d %s", code, b)
	}
	http.DefaultClient.CloseIdleConnections()
}
