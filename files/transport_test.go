package files_test

import (
	"bytes"
	"crypto/md5"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// transport is a way objects travel, set up on the platform.
type transport struct {
	name string
	// setup configures the platform; writes of large objects work only
	// when canWrite.
	setup    func(e *env)
	canWrite bool
	// read and write are procedures a large read and write must use.
	read, write string
}

var transports = []transport{
	{name: "inline", setup: func(*env) {}, canWrite: true, read: wire.FilesGet, write: wire.FilesPut},
	{name: "direct", setup: func(e *env) { e.p.SetFilesInlineMaxBytes(1024) }, canWrite: true, read: wire.FilesReadURL, write: wire.FilesWriteURL},
	{name: "ranged", setup: func(e *env) {
		e.p.SetFilesInlineMaxBytes(1024)
		e.p.SetFilesPresign(false)
	}, read: wire.FilesGet},
	{name: "unreachable", setup: func(e *env) {
		e.p.SetFilesInlineMaxBytes(1024)
		e.p.SetObjectStoreReachable(false)
	}, read: wire.FilesGet},
}

// TestTransports runs every method that moves content on every transport:
// through the router, directly over HTTP, and in ranges through the router
// where direct transfers are off or unreachable.
func TestTransports(t *testing.T) {
	const size = 10 << 10
	data := pattern(size)
	sum := md5.Sum(data)
	etag := hex.EncodeToString(sum[:])
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			e := setup(t)
			tr.setup(e)
			ctx := ctx(t)
			dir := t.TempDir()
			src := filepath.Join(dir, "src.bin")
			if err := os.WriteFile(src, data, 0o600); err != nil {
				t.Fatal(err)
			}
			check := func(t *testing.T, o *files.Object, key string) {
				t.Helper()
				if o.Key != key || o.Namespace != files.DefaultNamespace || o.Size != size || o.ETag != etag {
					t.Fatalf("object %+v, want %s of %d bytes, etag %s", o, key, size, etag)
				}
			}
			if tr.canWrite {
				writes := map[string]func(key string, p files.Option) (*files.Object, error){
					"Put": func(key string, p files.Option) (*files.Object, error) {
						return e.st.Put(ctx, key, data, p, files.ContentType("application/x-test"))
					},
					"PutReader": func(key string, p files.Option) (*files.Object, error) {
						return e.st.PutReader(ctx, key, &patternReader{n: size}, size, p, files.ContentType("application/x-test"))
					},
					"PutFile": func(key string, p files.Option) (*files.Object, error) {
						return e.st.PutFile(ctx, key, src, p, files.ContentType("application/x-test"))
					},
				}
				for name, write := range writes {
					t.Run(name, func(t *testing.T) {
						e.p.ClearRecorded()
						var pl progressLog
						o, err := write("w/"+name, pl.option())
						if err != nil {
							t.Fatal(err)
						}
						check(t, o, "w/"+name)
						pl.check(t, size)
						if o.ContentType != "application/x-test" {
							t.Errorf("content type %q", o.ContentType)
						}
						// The metadata is complete, inline and direct alike.
						stored := e.p.FileObjects(e.inst.Realm())
						i := slices.IndexFunc(stored, func(s platformtest.FileObject) bool { return s.Key == "w/"+name })
						if i < 0 || !o.LastModified.Equal(stored[i].LastModified.Truncate(time.Millisecond)) || o.URL == "" || o.ChecksumSHA256 != stored[i].ChecksumSHA256 {
							t.Errorf("metadata %+v, stored %+v", o, stored)
						}
						if calls := e.calls(); !slices.Contains(calls, tr.write) {
							t.Errorf("calls %v lack %s", calls, tr.write)
						}
						got, ok := e.p.FileContent(e.inst.Realm(), files.DefaultNamespace, "w/"+name)
						if !ok {
							t.Fatal("not stored")
						}
						equalBytes(t, got, data)
					})
				}
			}
			e.p.StoreFile(e.inst.Realm(), files.DefaultNamespace, "r/obj", data, "application/x-test")
			reads := map[string]func(p files.Option) ([]byte, *files.Object, error){
				"Get": func(p files.Option) ([]byte, *files.Object, error) {
					b, err := e.st.Get(ctx, "r/obj", p)
					return b, &files.Object{Key: "r/obj", Namespace: files.DefaultNamespace, Size: int64(len(b)), ETag: etag, ContentType: "application/x-test"}, err
				},
				"GetTo": func(p files.Option) ([]byte, *files.Object, error) {
					var buf bytes.Buffer
					o, err := e.st.GetTo(ctx, "r/obj", &buf, p)
					return buf.Bytes(), o, err
				},
				"GetToFile": func(p files.Option) ([]byte, *files.Object, error) {
					dst := filepath.Join(dir, "dst.bin")
					o, err := e.st.GetToFile(ctx, "r/obj", dst, p)
					if err != nil {
						return nil, nil, err
					}
					b, err := os.ReadFile(dst)
					if fi, _ := os.Stat(dst); fi.Mode().Perm() != 0o644 {
						t.Errorf("mode %v", fi.Mode())
					}
					return b, o, err
				},
			}
			for name, read := range reads {
				t.Run(name, func(t *testing.T) {
					e.p.ClearRecorded()
					var pl progressLog
					got, o, err := read(pl.option())
					if err != nil {
						t.Fatal(err)
					}
					equalBytes(t, got, data)
					check(t, o, "r/obj")
					pl.check(t, size)
					if o.ContentType != "application/x-test" {
						t.Errorf("content type %q", o.ContentType)
					}
					if calls := e.calls(); !slices.Contains(calls, tr.read) {
						t.Errorf("calls %v lack %s", calls, tr.read)
					}
					entries, _ := os.ReadDir(dir)
					if len(entries) > 2 {
						t.Errorf("left behind: %v", entries)
					}
				})
			}
		})
	}
}
