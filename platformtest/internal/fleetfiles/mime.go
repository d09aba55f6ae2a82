// This file holds the content types a listing infers from a key's
// extension, as fleetfiles does with Go's built-in MIME table (fixed here,
// so the answer does not depend on the host's mime.types files). It
// serves no URI.

package fleetfiles

import (
	"path"
	"strings"
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
