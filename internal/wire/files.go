package wire

import "time"

// Managed file storage (docs/wire.md §7.12): the procedures are in uris.go
// (FilesNamespaces … FilesWriteURL, FilesEventsTopic); these are their
// codes, payload field names, limits and the HTTP paths of the object
// store.

// File store error codes, carried by a failed envelope's "code" (the
// seed's FileStoreError table plus INVALID_KEY and INVALID_RANGE). The set
// is open: a newer server may send others.
const (
	FileNotAuthorized         = "NOT_AUTHORIZED"
	FileNoSuchNamespace       = "NO_SUCH_NAMESPACE"
	FileNoSuchObject          = "NO_SUCH_OBJECT"
	FileTooLarge              = "TOO_LARGE"
	FileObjectTooLarge        = "OBJECT_TOO_LARGE"
	FileQuotaExceeded         = "QUOTA_EXCEEDED"
	FileContentTypeNotAllowed = "CONTENT_TYPE_NOT_ALLOWED"
	FileNotSupported          = "NOT_SUPPORTED"
	FileNotAvailable          = "NOT_AVAILABLE"
	FilePresignUnreachable    = "PRESIGN_UNREACHABLE"
	FileClockSkew             = "CLOCK_SKEW"
	FileInternal              = "INTERNAL"
	FileInvalidKey            = "INVALID_KEY"
	FileInvalidRange          = "INVALID_RANGE"
)

// Envelope fields of every files.* answer: {success, payload} or
// {success: false, code, reason}.
const (
	FieldSuccess = "success"
	FieldPayload = "payload"
	FieldCode    = "code"
	FieldReason  = "reason"
)

// Request and descriptor fields of files.* payloads.
const (
	FieldNamespace      = "namespace"
	FieldKey            = "key"
	FieldSize           = "size"
	FieldETag           = "etag"
	FieldContentType    = "content_type"
	FieldLastModified   = "last_modified"
	FieldChecksumSHA256 = "checksum_sha256"
	FieldData           = "data"
	FieldEncoding       = "encoding"
	FieldOffset         = "offset"
	FieldLength         = "length"
	FieldPrefix         = "prefix"
	FieldDelimiter      = "delimiter"
	FieldLimit          = "limit"
	FieldCursor         = "cursor"
	FieldObjects        = "objects"
	FieldPrefixes       = "prefixes"
	FieldIsTruncated    = "is_truncated"
	FieldTo             = "to"
	FieldToNamespace    = "to_namespace"
	FieldDeleted        = "deleted"
	FieldDetail         = "detail"
	FieldExpiresIn      = "expires_in"
	FieldURL            = "url"
	FieldMethod         = "method"
	FieldHeaders        = "headers"
	FieldMaxBytes       = "max_bytes"
	FieldAction         = "action"
	FieldObject         = "object"
	EncodingBase64      = "base64"
)

// Catalog (files.read.namespaces) and usage (files.read.usage) fields.
const (
	FieldNamespaces          = "namespaces"
	FieldName                = "name"
	FieldDescription         = "description"
	FieldPrivate             = "private"
	FieldContentTypes        = "content_types"
	FieldMaxObjectBytes      = "max_object_bytes"
	FieldInlineMaxBytes      = "inline_max_bytes"
	FieldListMaxLimit        = "list_max_limit"
	FieldQuotaBytes          = "quota_bytes"
	FieldSuggestedQuotaBytes = "suggested_quota_bytes"
	FieldSadKey              = "sad_key"
	FieldPresignAvailable    = "presign_available"
	FieldPresignMaxBytes     = "presign_max_bytes"
	FieldPublicBaseURL       = "public_base_url"
	FieldCloudBaseURL        = "cloud_base_url"
	FieldSizeBytes           = "size_bytes"
	FieldObjectCount         = "object_count"
	FieldFreeBytes           = "free_bytes"
	FieldPerNamespace        = "per_namespace"
)

// Actions of a files.events publication.
const (
	FileActionPut    = "put"
	FileActionDelete = "delete"
)

// Limits of managed file storage.
const (
	// DefaultFileNamespace is the namespace of a call that names none.
	DefaultFileNamespace = "default"
	// DefaultInlineMaxBytes is the production inline transfer limit:
	// 6 MiB.
	DefaultInlineMaxBytes int64 = 6 << 20
	// PresignMaxBytes is the largest single direct upload: 5 GiB (no
	// multipart).
	PresignMaxBytes int64 = 5 << 30
	// MaxClockSkew is the largest difference between a device's clock and
	// the object store's that a direct request survives.
	MaxClockSkew = 15 * time.Minute
	// DefaultShareTTL is the lifetime a read URL is minted with by default.
	DefaultShareTTL = 15 * time.Minute
	// DefaultUploadTTL is the lifetime an upload URL is minted with by
	// default.
	DefaultUploadTTL = time.Hour
	// DefaultListLimit and MaxListLimit bound one page of files.read.list.
	DefaultListLimit = 200
	MaxListLimit     = 1000
)

// HTTP paths of the file service on the platform's HTTP edge.
const (
	// FilesPermanentPath starts a permanent object URL:
	// /f/<sad_key>/<namespace>/<key>[?v=<etag>].
	FilesPermanentPath = "/f/"
	// ObjectStorePath starts a presigned object-store URL:
	// /store/<bucket>/<namespace>/<key>?X-Amz-….
	ObjectStorePath = "/store/"
	// VersionParam carries the etag of a versioned permanent URL.
	VersionParam = "v"
	// ClockSkewCode is the object store's error code for a request whose
	// Date is too far from its clock (HTTP 403).
	ClockSkewCode = "RequestTimeTooSkewed"
	// QuotaExceededCode is the object store's error code for an upload
	// over the storage budget (HTTP 403).
	QuotaExceededCode = "QuotaExceeded"
)
