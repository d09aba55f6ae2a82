// This file holds how the platform's HTTP server hands out an object's
// bytes (the object store, permanent URLs, flockd's console): an app's
// objects are served on the same origin as the console and the REST API,
// so nothing in them may act there. It serves no URI itself.
//
//   - Every answer of the object store and of permanent URLs, an object
//     or an error, carries Content-Security-Policy: sandbox (a document
//     runs without script, in an origin of its own) and
//     X-Content-Type-Options: nosniff (a browser takes the content type
//     as sent).
//   - An object is an attachment (Content-Disposition: attachment, with
//     the key's last segment as file name) unless its content type is
//     known to be inert when shown: raster images and PDF. HTML, SVG (an
//     image that may carry script), XML, JavaScript, text and anything
//     unknown or unparsable are attachments.

package fleetfiles

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// inlineTypes are the content types an object may be shown inline with.
var inlineTypes = map[string]bool{
	"image/png":                true,
	"image/jpeg":               true,
	"image/gif":                true,
	"image/webp":               true,
	"image/avif":               true,
	"image/bmp":                true,
	"image/vnd.microsoft.icon": true,
	"image/x-icon":             true,
	"application/pdf":          true,
}

// Inline reports whether an object of content type ct may be shown
// inline: a raster image or a PDF, with or without parameters.
func Inline(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && inlineTypes[mt]
}

// inertHeaders sets the headers that keep any answer of the object store
// and of permanent URLs from acting on the platform's origin.
func inertHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "sandbox")
	h.Set("X-Content-Type-Options", "nosniff")
}

// ObjectHeaders sets the headers of an answer carrying the bytes of the
// object key with content type ct: the content type ("" is
// application/octet-stream), the inert headers and the disposition, an
// attachment unless ct may be shown inline and download is false.
func ObjectHeaders(h http.Header, ct, key string, download bool) {
	if ct == "" {
		ct = defaultContentType
	}
	inertHeaders(h)
	h.Set("Content-Type", ct)
	h.Set("Content-Disposition", disposition(ct, key, download))
}

// disposition is the Content-Disposition of the object key with content
// type ct, naming the key's last segment as the file name: attachment
// unless ct may be shown inline and download is false.
func disposition(ct, key string, download bool) string {
	disp := "attachment"
	if !download && Inline(ct) {
		disp = "inline"
	}
	if v := mime.FormatMediaType(disp, map[string]string{"filename": path.Base(key)}); v != "" {
		return v
	}
	return disp
}

// wantsDownload reports whether a signed response-content-disposition
// asks for an attachment: it may make an object a download, never show an
// active type inline.
func wantsDownload(requested string) bool {
	disp, _, _ := mime.ParseMediaType(requested)
	return strings.EqualFold(disp, "attachment")
}

// serveObject answers a read of o with its headers, ranges and
// conditional requests. Content the store fails to read (a data folder's
// damaged blob, store/folder's objects_verify.go) is not served: the
// answer is 500 when nothing of it was sent yet, and cut (the connection
// closed short of its Content-Length) otherwise.
func serveObject(w http.ResponseWriter, r *http.Request, o store.Object, c store.Content, download bool) {
	h := w.Header()
	ObjectHeaders(h, o.ContentType, o.Key, download)
	h.Set("ETag", `"`+o.MD5+`"`)
	h.Set("Accept-Ranges", "bytes")
	content := &failingReader{ReadSeeker: c.Reader()}
	held := &heldHeader{ResponseWriter: w}
	http.ServeContent(held, r, "", o.Modified, content)
	switch {
	case content.err == nil:
		held.flush()
	case !held.sent:
		for _, k := range []string{"Content-Length", "Content-Range", "Content-Disposition", "ETag", "Last-Modified", "Accept-Ranges"} {
			h.Del(k)
		}
		http.Error(w, content.err.Error(), http.StatusInternalServerError)
	default:
		panic(http.ErrAbortHandler) // closes the connection short of what it announced
	}
}

// failingReader remembers the first failure of a read of an object's
// content.
type failingReader struct {
	io.ReadSeeker
	err error
}

func (r *failingReader) Read(p []byte) (int, error) {
	n, err := r.ReadSeeker.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && r.err == nil {
		r.err = err
	}
	return n, err
}

// heldHeader holds the status of an answer back until its first byte, so
// that an answer whose content fails before any byte can still be 500.
type heldHeader struct {
	http.ResponseWriter
	code int
	sent bool
}

func (h *heldHeader) WriteHeader(code int) {
	if h.code == 0 {
		h.code = code
	}
}

func (h *heldHeader) Write(p []byte) (int, error) {
	h.flush()
	return h.ResponseWriter.Write(p)
}

// flush sends the status held back, if any.
func (h *heldHeader) flush() {
	if h.sent {
		return
	}
	h.sent = true
	if h.code != 0 {
		h.ResponseWriter.WriteHeader(h.code)
	}
}
