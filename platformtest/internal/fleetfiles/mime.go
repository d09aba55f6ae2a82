// This file holds the content types a listing infers from a key's
// extension, as fleetfiles does with Go's built-in MIME table (fixed here,
// so the answer does not depend on the host's mime.types files). It
// serves no URI.

package fleetfiles

import (
	"path"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
)

var extensionTypes = map[string]string{
	".jpg":  "image/jpeg",
	".jpeg": "image/jpeg",
	".png":  "image/png",
	".gif":  "image/gif",
	".webp": "image/webp",
	".avif": "image/avif",
	".svg":  "image/svg+xml",
	".pdf":  "application/pdf",
	".json": "application/json",
	".xml":  "text/xml; charset=utf-8",
	".html": "text/html; charset=utf-8",
	".htm":  "text/html; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".wasm": "application/wasm",
}

// typeByExtension returns the content type a listing shows for key.
func typeByExtension(key string) string {
	if t, ok := extensionTypes[strings.ToLower(path.Ext(key))]; ok {
		return t
	}
	return defaultContentType
}

// contentTypeAllowed reports whether ct matches one of a namespace's
// patterns: exact, "type/*" or "*/*", case-insensitive, parameters
// (";charset=…") ignored.
func contentTypeAllowed(patterns []string, ct string) bool {
	base, _, _ := strings.Cut(ct, ";")
	base = strings.ToLower(strings.TrimSpace(base))
	major, _, _ := strings.Cut(base, "/")
	for _, p := range patterns {
		p = strings.ToLower(p)
		if p == "*/*" || p == base || (strings.HasSuffix(p, "/*") && strings.TrimSuffix(p, "/*") == major) {
			return true
		}
	}
	return false
}

// checkContentType refuses a content type that cannot be served as a
// header: one with a control character (CR, LF, NUL, …; a tab is allowed)
// or over 255 bytes, which would be stored as given and sent back
// broken, or split into headers of its own, by every read.
func checkContentType(ct string) *failure {
	if len(ct) > maxContentType {
		return refuse(wire.FileContentTypeNotAllowed, "content type of %d bytes: at most %d", len(ct), maxContentType)
	}
	for i := 0; i < len(ct); i++ {
		if c := ct[i]; (c < 0x20 && c != '\t') || c == 0x7f {
			return refuse(wire.FileContentTypeNotAllowed, "content type %q holds the control character %q at byte %d: "+
				"a content type is one header line, such as text/plain; charset=utf-8", ct, c, i)
		}
	}
	return nil
}

// maxContentType bounds a content type's length.
const maxContentType = 255
