package wire

// Names of the management REST API (docs/fake.md §9) that the fake platform
// and package management must spell alike. The resource structs stay
// separate on each side; the OpenAPI test keeps them honest.

// Stable error codes of the REST API's error body {"error", "code"}, with
// the status they come with.
const (
	CodeInvalidJSON       = "INVALID_JSON"         // 400: the body is not JSON
	CodeInvalidQuery      = "INVALID_QUERY"        // 400: a malformed query (ids)
	CodeUnauthenticated   = "UNAUTHENTICATED"      // 401: no or unknown bearer token
	CodeForbidden         = "FORBIDDEN"            // 403: visible, but the user may not change it
	CodeNotFound          = "NOT_FOUND"            // 404: no such resource, or not visible
	CodeMethodNotAllowed  = "METHOD_NOT_ALLOWED"   // 405
	CodeAlreadyExists     = "ALREADY_EXISTS"       // 409: name or version taken
	CodeAlreadyInstalled  = "ALREADY_INSTALLED"    // 409: the app is on the device or group already
	CodeBuildInProgress   = "BUILD_IN_PROGRESS"    // 409
	CodeNoBuildInProgress = "NO_BUILD_IN_PROGRESS" // 409
	CodeNotReleased       = "NOT_RELEASED"         // 409: the app has no READY release
	CodeReleaseNotReady   = "RELEASE_NOT_READY"    // 409: the named release is not READY
	CodeInUse             = "IN_USE"               // 409: installed on a device or a group
	CodeInherited         = "INHERITED_FROM_GROUP" // 409: remove it from the group instead
	CodeBodyTooLarge      = "BODY_TOO_LARGE"       // 413
	CodeValidation        = "VALIDATION_FAILED"    // 422
	CodeInternal          = "INTERNAL"             // 500: a bug of the fake, never bad input
)

// States of an app on a device. A user may ask for RUNNING, STOPPED or
// PRESENT; the device agent reports the others on the way.
const (
	AppStateRunning     = "RUNNING"
	AppStateStopped     = "STOPPED"
	AppStatePresent     = "PRESENT"
	AppStateDownloading = "DOWNLOADING"
	AppStateStarting    = "STARTING"
	AppStateStopping    = "STOPPING"
	AppStateFailed      = "FAILED"
	AppStateRemoved     = "REMOVED"
)

// Statuses of a release build.
const (
	ReleaseBuilding = "BUILDING"
	ReleaseReady    = "READY"
	ReleaseFailed   = "FAILED"
	ReleaseCanceled = "CANCELED"
)

// Statuses of a device.
const (
	DeviceConnected    = "CONNECTED"
	DeviceDisconnected = "DISCONNECTED"
	DeviceConfiguring  = "CONFIGURING"
)

// Project roles of a management API user.
const (
	RoleAdmin  = "admin"
	RoleViewer = "viewer"
)
