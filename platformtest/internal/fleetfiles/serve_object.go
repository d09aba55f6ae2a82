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
	"mime"
	"net/http"
	"path"
	"strings"
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
// conditional requests.
func serveObject(w http.ResponseWriter, r *http.Request, o *object, download bool) {
	h := w.Header()
	ObjectHeaders(h, o.contentType, o.key, download)
	h.Set("ETag", `"`+o.blob.md5+`"`)
	h.Set("Accept-Ranges", "bytes")
	http.ServeContent(w, r, "", o.modified, o.blob.reader())
}
