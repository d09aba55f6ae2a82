// This file holds the runnable examples of package files, each against
// the fake platform.

package files_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/platformtest"
)

// exampleTemplate declares a namespace for pictures beside default.
const exampleTemplate = `
data:
  tables: []
files:
  namespaces:
    - name: default
    - name: photos
      contentTypes: ["image/*"]
      maxObjectBytes: 1048576
`

// exampleStore starts a fake platform with one app on one device and
// returns the file store of a started client; stop ends both.
func exampleStore(opts ...platformtest.Option) (*platformtest.Platform, *files.Store, func()) {
	p, err := platformtest.Start(opts...)
	if err != nil {
		panic(err)
	}
	inst := p.Install(p.AddDevice("camera-1"), p.AddApp("inspection", exampleTemplate), platformtest.Dev)
	c, err := client.New(client.WithEnv(inst.Env()))
	if err != nil {
		panic(err)
	}
	if err := c.Start(context.Background()); err != nil {
		panic(err)
	}
	return p, files.New(c), func() {
		_ = c.Stop(context.Background())
		p.Close()
	}
}

func Example() {
	_, st, stop := exampleStore()
	defer stop()
	ctx := context.Background()

	o, err := st.Put(ctx, "reports/2026-01.csv", []byte("day,count\n1,42\n"), files.ContentType("text/csv"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("stored", o.Key, o.Size, "bytes, etag", o.ETag)

	data, err := st.Get(ctx, "reports/2026-01.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("read %q\n", data)

	page, err := st.List(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("folders", page.Prefixes)
	// Output:
	// stored reports/2026-01.csv 15 bytes, etag 69bc7c8c2ada2e2cb049c8f60c34a4bf
	// read "day,count\n1,42\n"
	// folders [reports/]
}

func ExampleStore_Iter() {
	_, st, stop := exampleStore()
	defer stop()
	ctx := context.Background()
	for _, k := range []string{"shots/1.png", "shots/2.png", "shots/3.png", "shots.txt"} {
		if _, err := st.Put(ctx, k, []byte{0x89, 'P', 'N', 'G'}, files.Namespace("photos"), files.ContentType("image/png")); err != nil {
			fmt.Println(err)
		}
	}
	// Every object of a folder, two per page.
	for o, err := range st.Iter(ctx, files.Namespace("photos"), files.Prefix("shots/"), files.Limit(2)) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(o.Namespace, o.Key, o.Size)
	}
	// Output:
	// photos shots/1.png 4
	// photos shots/2.png 4
	// photos shots/3.png 4
}

func ExampleStore_GetToFile() {
	p, st, stop := exampleStore()
	defer stop()
	p.SetFilesInlineMaxBytes(64 << 10) // objects above 64 KiB go directly to the object store
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "files-example")
	defer os.RemoveAll(dir)

	src := filepath.Join(dir, "firmware.bin")
	_ = os.WriteFile(src, bytes.Repeat([]byte{0xAB}, 1<<20), 0o600)
	if _, err := st.Catalog(ctx); err != nil { // reads the inline limit
		fmt.Println(err)
		return
	}
	o, err := st.PutFile(ctx, "firmware/v2.bin", src)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("uploaded", o.Size, "bytes")

	dst := filepath.Join(dir, "downloaded.bin")
	var last int64
	o, err = st.GetToFile(ctx, "firmware/v2.bin", dst, files.Progress(func(done, total int64) { last = done }))
	if err != nil {
		fmt.Println(err)
		return
	}
	fi, _ := os.Stat(dst)
	fmt.Println("downloaded", fi.Size(), "bytes; progress reached", last)
	// Output:
	// uploaded 1048576 bytes
	// downloaded 1048576 bytes; progress reached 1048576
}

func ExampleStore_ShareURL() {
	_, st, stop := exampleStore()
	defer stop()
	ctx := context.Background()
	if _, err := st.Put(ctx, "hello.txt", []byte("hello, world"), files.ContentType("text/plain")); err != nil {
		fmt.Println(err)
		return
	}
	sh, err := st.ShareURL(ctx, "hello.txt")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("expires in", sh.ExpiresIn)
	// Anyone holding the URL reads the object, without credentials.
	resp, err := http.Get(sh.URL)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	fmt.Println(resp.Status, string(body))
	// Output:
	// expires in 15m0s
	// 200 OK hello, world
}

func ExampleCodeOf() {
	_, st, stop := exampleStore()
	defer stop()
	ctx := context.Background()
	_, err := st.Put(ctx, "notes.txt", []byte("x"), files.Namespace("photos"), files.ContentType("text/plain"))
	switch files.CodeOf(err) {
	case files.CodeContentTypeNotAllowed:
		fmt.Println("photos takes images only")
	default:
		fmt.Println(err)
	}
	_, err = st.Get(ctx, "missing.txt")
	fmt.Println(files.CodeOf(err))
	// Output:
	// photos takes images only
	// NO_SUCH_OBJECT
}

func ExampleNew() {
	_, st, stop := exampleStore(platformtest.WithoutFileService())
	defer stop()
	// A deployment without a file service: every method says so.
	_, err := st.Catalog(context.Background())
	fmt.Println(files.CodeOf(err))
	// Output:
	// NOT_AVAILABLE
}
