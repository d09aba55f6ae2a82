package files_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// TestErrorCodes produces every code of the file store through a real
// situation on the platform; none is injected.
func TestErrorCodes(t *testing.T) {
	big := pattern(2048)
	for _, tc := range []struct {
		code string
		opts []platformtest.Option
		run  func(t *testing.T, e *env) error
	}{
		{files.CodeNotAuthorized, nil, func(t *testing.T, e *env) error {
			e.p.Uninstall(e.inst) // the session stays joined, the app is gone
			_, err := e.st.Stat(ctx(t), "x")
			return err
		}},
		{files.CodeNoSuchNamespace, nil, func(t *testing.T, e *env) error {
			_, err := e.st.Put(ctx(t), "x", []byte("x"), files.Namespace("videos"))
			return err
		}},
		{files.CodeNoSuchObject, nil, func(t *testing.T, e *env) error {
			_, err := e.st.Get(ctx(t), "missing")
			return err
		}},
		{files.CodeTooLarge, nil, func(t *testing.T, e *env) error {
			// Air-gapped: over the inline limit, refused before sending.
			e.p.SetFilesInlineMaxBytes(1024)
			e.p.SetFilesPresign(false)
			e.p.ClearRecorded()
			_, err := e.st.Put(ctx(t), "big", big)
			for _, c := range e.calls() {
				if strings.HasPrefix(c, "files.write.") {
					t.Errorf("sent %s", c)
				}
			}
			return err
		}},
		{files.CodeObjectTooLarge, nil, func(t *testing.T, e *env) error {
			_, err := e.st.Put(ctx(t), "p.png", pattern(5000), files.Namespace("photos"), files.ContentType("image/png"))
			return err
		}},
		{files.CodeQuotaExceeded, nil, func(t *testing.T, e *env) error {
			e.p.SetFilesQuota(e.inst.Realm(), 3000)
			if _, err := e.st.Put(ctx(t), "a", big); err != nil {
				t.Fatal(err)
			}
			_, err := e.st.Put(ctx(t), "b", big)
			return err
		}},
		{files.CodeContentTypeNotAllowed, nil, func(t *testing.T, e *env) error {
			_, err := e.st.Put(ctx(t), "notes.txt", []byte("x"), files.Namespace("photos"), files.ContentType("text/plain"))
			return err
		}},
		{files.CodeNotSupported, nil, func(t *testing.T, e *env) error {
			e.p.SetFilesPresign(false)
			e.store("x")
			_, err := e.st.ShareURL(ctx(t), "x")
			return err
		}},
		{files.CodeNotAvailable, []platformtest.Option{platformtest.WithoutFileService()}, func(t *testing.T, e *env) error {
			_, err := e.st.Catalog(ctx(t))
			if client.WampURI(err) != wire.ErrNoSuchProcedure {
				t.Errorf("the router's refusal is lost: %v", err)
			}
			return err
		}},
		{files.CodePresignUnreachable, nil, func(t *testing.T, e *env) error {
			e.p.SetFilesInlineMaxBytes(1024)
			e.p.SetObjectStoreReachable(false)
			_, err := e.st.Put(ctx(t), "big", big)
			return err
		}},
		{files.CodeClockSkew, nil, func(t *testing.T, e *env) error {
			e.p.SetFilesInlineMaxBytes(1024)
			e.p.SetDeviceClockSkew(-20 * time.Minute)
			_, err := e.st.Put(ctx(t), "big", big)
			return err
		}},
		{files.CodeInternal, nil, func(t *testing.T, e *env) error {
			_, err := e.st.List(ctx(t), files.Cursor("not base64!"))
			return err
		}},
		{files.CodeInvalidKey, nil, func(t *testing.T, e *env) error {
			_, err := e.st.Put(ctx(t), "a//b", []byte("x"))
			return err
		}},
		{files.CodeInvalidRange, nil, func(t *testing.T, e *env) error {
			// A ranged read while the object is replaced by a shorter one:
			// the next range starts past its end.
			e.p.SetFilesInlineMaxBytes(1024)
			e.p.SetFilesPresign(false)
			e.p.StoreFile(e.inst.Realm(), "default", "shrinks", big, "")
			_, err := e.st.Get(ctx(t), "shrinks", files.Progress(func(done, total int64) {
				if done == 1024 {
					e.p.StoreFile(e.inst.Realm(), "default", "shrinks", []byte("short"), "")
				}
			}))
			return err
		}},
	} {
		t.Run(tc.code, func(t *testing.T) {
			e := setup(t, tc.opts...)
			err := tc.run(t, e)
			mustCode(t, err, tc.code)
			var fe *files.Error
			if !errors.As(err, &fe) || fe.Reason == "" {
				t.Errorf("no reason: %#v", fe)
			}
			var oe *client.OpError
			if !errors.As(err, &oe) || !strings.HasPrefix(oe.Op, "files.") || oe.URI == "" {
				t.Errorf("no operation: %v", err)
			}
			if strings.Contains(err.Error(), "X-Amz-Signature") {
				t.Errorf("a presigned URL leaked: %v", err)
			}
		})
	}
}

// TestClockSkewByPlatformClock: moving the platform clock puts the
// device's clock off as well.
func TestClockSkewByPlatformClock(t *testing.T) {
	e := setup(t)
	e.p.SetFilesInlineMaxBytes(1024)
	e.p.Clock().Advance(time.Hour)
	_, err := e.st.Put(ctx(t), "big", pattern(2048))
	mustCode(t, err, files.CodeClockSkew)
}

// TestObjectChangedWhileRead: a ranged read fails when the object is
// replaced between two ranges.
func TestObjectChangedWhileRead(t *testing.T) {
	e := setup(t)
	e.p.SetFilesInlineMaxBytes(1024)
	e.p.SetObjectStoreReachable(false) // reads fall back to ranges
	e.p.StoreFile(e.inst.Realm(), "default", "doc", pattern(4096), "")
	_, err := e.st.Get(ctx(t), "doc", files.Progress(func(done, total int64) {
		if done == 1024 {
			e.p.StoreFile(e.inst.Realm(), "default", "doc", bytes.Repeat([]byte("x"), 4096), "")
		}
	}))
	mustCode(t, err, files.CodeInternal)
	if !strings.Contains(err.Error(), "object changed while it was read") {
		t.Errorf("error %v", err)
	}
}

// TestOverFiveGiB: no multipart upload; refused before anything is read
// or sent.
func TestOverFiveGiB(t *testing.T) {
	e := setup(t)
	_, err := e.st.PutReader(ctx(t), "huge", failingReader{t}, files.MaxObjectBytes+1)
	mustCode(t, err, files.CodeTooLarge)
	if n := count(e.calls(), wire.FilesWriteURL); n != 0 {
		t.Errorf("%d upload URLs minted", n)
	}
	_, err = e.st.PutReader(ctx(t), "neg", failingReader{t}, -1)
	if !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("negative size: %v", err)
	}
}

type failingReader struct{ t *testing.T }

func (r failingReader) Read([]byte) (int, error) {
	r.t.Error("the reader was read")
	return 0, io.EOF
}
