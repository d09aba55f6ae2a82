// This file holds Object, the metadata of a stored object, its decoding
// from the file service's descriptors, and the helpers that read payload
// fields.

package files

import (
	"math"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// Object is the metadata of a stored object.
type Object struct {
	Namespace      string    `json:"namespace"`
	Key            string    `json:"key"`
	Size           int64     `json:"size"`
	ETag           string    `json:"etag"` // changes with the content; the version of a URL
	ContentType    string    `json:"content_type"`
	LastModified   time.Time `json:"last_modified"` // zero only when the server's answer had none
	ChecksumSHA256 string    `json:"checksum_sha256,omitempty"`
	// URL is the object's permanent URL (see Store.URL), "" where the
	// deployment has no HTTP edge.
	URL string `json:"url,omitempty"`
}

// decodeObject reads a descriptor; its URL is composed from cat (any
// url on the wire is ignored). An empty namespace is "default".
func decodeObject(d map[string]any, cat *Catalog) Object {
	o := Object{
		Namespace:      stringField(d, wire.FieldNamespace),
		Key:            stringField(d, wire.FieldKey),
		Size:           intField(d, wire.FieldSize),
		ETag:           stringField(d, wire.FieldETag),
		ContentType:    stringField(d, wire.FieldContentType),
		ChecksumSHA256: stringField(d, wire.FieldChecksumSHA256),
	}
	if o.Namespace == "" {
		o.Namespace = DefaultNamespace
	}
	if t, err := time.Parse(time.RFC3339Nano, stringField(d, wire.FieldLastModified)); err == nil {
		o.LastModified = t.UTC()
	}
	if cat != nil {
		o.URL = objectURL(cat.PublicBaseURL, cat.SadKey, o.Namespace, o.Key, "")
	}
	return o
}

func stringField(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

func boolField(m map[string]any, k string) bool {
	b, _ := m[k].(bool)
	return b
}

// intField reads a number field as int64 (0 when absent).
func intField(m map[string]any, k string) int64 {
	switch v := m[k].(type) {
	case int64:
		return v
	case uint64:
		return math.MaxInt64
	case float64:
		if v >= math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(v)
	}
	return 0
}
