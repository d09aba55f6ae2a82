package wire

// Router and generic WAMP error URIs (docs/wire.md §10.1).
const (
	ErrNoSuchProcedure      = "wamp.error.no_such_procedure"
	ErrNoSuchRealm          = "wamp.error.no_such_realm"
	ErrNotAuthorized        = "wamp.error.not_authorized"
	ErrAuthorizationFailed  = "wamp.error.authorization_failed"
	ErrAuthenticationFailed = "wamp.error.authentication_failed"
	ErrNoAuthMethod         = "wamp.error.no_auth_method"
	ErrRuntimeError         = "wamp.error.runtime_error"
	ErrCanceled             = "wamp.error.canceled"
	ErrProcedureExists      = "wamp.error.procedure_already_exists"
	ErrInvalidArgument      = "wamp.error.invalid_argument"
	ErrNoSuchSubscription   = "wamp.error.no_such_subscription"
	ErrNoSuchRegistration   = "wamp.error.no_such_registration"
	ErrInvalidURI           = "wamp.error.invalid_uri"
	ErrTimeout              = "wamp.error.timeout"
	// ErrUnavailable answers an INVOCATION the callee cannot take on now
	// (WAMP advanced profile): the SDK's device functions send it when a
	// registration has its limit of invocations in flight.
	ErrUnavailable = "wamp.error.unavailable"

	CloseTransportLost  = "wamp.close.transport_lost"
	CloseSystemShutdown = "wamp.close.system_shutdown"
	CloseRealm          = "wamp.close.close_realm"
	CloseGoodbyeAndOut  = "wamp.close.goodbye_and_out"
	CloseKilled         = "wamp.close.killed"

	// NoHandlerPrefix starts the first argument of the invalid_argument error
	// a nexus callee sends for an INVOCATION that overtook its REGISTERED
	// (docs/wire.md §7.9): the procedure never ran, so the call may be retried.
	NoHandlerPrefix = "client has no handler for registration"
)

// Data backend refusals (docs/wire.md §10.2).
const (
	ErrRateLimited           = "sys.dataservice.error.rate_limited"
	ErrResultTooLarge        = "sys.dataservice.error.result_too_large"
	ErrInvalidLimit          = "sys.dataservice.error.invalid_limit"
	ErrInvalidTimeRange      = "sys.dataservice.error.invalid_time_range"
	ErrInvalidMetric         = "sys.dataservice.error.invalid_metric"
	ErrInvalidGroupBy        = "sys.dataservice.error.invalid_group_by"
	ErrSeriesTooManyGroups   = "sys.dataservice.error.series_too_many_groups"
	ErrSecretColumn          = "sys.dataservice.error.secret_column"
	ErrNotASecretColumn      = "sys.dataservice.error.not_a_secret_column"
	ErrInvalidFilter         = "sys.dataservice.error.invalid_filter"
	ErrStorageFull           = "sys.dataservice.error.storage_full"
	ErrStorageOverusage      = "sys.dataservice.error.storage_overusage"
	ErrEntityKeyConflict     = "sys.dataservice.error.entity_key_conflict"
	ErrSecretSentinel        = "sys.dataservice.error.secret_sentinel_unresolvable"
	ErrSecretCiphertext      = "sys.dataservice.error.secret_ciphertext_rejected"
	ErrAppAccessNoGrant      = "sys.appaccess.error.no_grant"
	ErrAppAccessUnknownApp   = "sys.appaccess.error.unknown_app"
	ErrAppAccessNotInstalled = "sys.appaccess.error.provider_not_installed"
)

// ErrOutcomeUnknown answers a write whose storage lost the answer of its
// COMMIT (the connection ended, an I/O error at commit): the rows may be
// stored or not. The SDK maps it to client.ErrOutcomeUnknown. flockd's
// own: the platform answers the Postgres error (docs/postgres.md).
const ErrOutcomeUnknown = "sys.dataservice.error.outcome_unknown"
