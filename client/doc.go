// Package client is the IronFlock edge SDK for Go: an app running in a
// container on a device uses it to publish and subscribe, call and serve
// procedures on other devices of its project, and (in the satellites
// files, secrets, crossapp and agent) to reach the platform's other services.
//
// # Configuration
//
// New reads the environment the device agent injects into the container:
//
//	DEVICE_SERIAL_NUMBER  required; the device's identity
//	DEVICE_KEY            this device's key (device functions, metadata)
//	DEVICE_NAME           sent as metadata
//	SWARM_KEY, APP_KEY    the project and the app; they name the realm
//	APP_NAME              remote-access URLs
//	ENV                   PROD (any case) for production, else development
//	DEVICE_ENDPOINT_URL   the router: its path is replaced by /ws-ua-usr
//	RESWARM_URL           the studio, mapped to its router
//	APP_AUTH_ID, APP_AUTH_SECRET
//	                      the per-app WAMP-CRA credential, read from
//	                      /data/env/<NAME>.txt first (IRONFLOCK_ENV_DIR or
//	                      WithEnvDir change the directory) on every
//	                      connection attempt; without it the legacy
//	                      credential (serial, serial) is used
//
// Options override each of them; WithEnv replaces the process environment by
// a map, which tests and programs running several clients use. Browser-style
// programs build the identity from a Config, or fetch it with FromServer.
// Apps that also talk to other WAMP routers set the realm (WithRealm) and
// the authentication (WithAuth: WAMPCRA, Ticket, Anonymous, or several
// offered at once), register procedures by full URI (RegisterProcedure)
// and publish payloads without the device metadata (NoMetadata).
//
// # Connection
//
// Start blocks until the app's realm realm-<swarm>-<app>-<stage> is joined,
// waiting through wamp.error.no_such_realm (a realm the platform has not
// created yet). From then on a supervisor keeps the connection up: when the
// link drops it reconnects at once and then every 1 to 2 seconds (a router
// that refuses connections, as while it restarts, is retried every 20 to
// 160 ms during the first second of the outage), restores
// every subscription and registration before reporting StateConnected
// again, pings a link that has been silent for 30 seconds and drops it when
// nothing arrives within 10 seconds (incoming traffic of any kind counts as
// proof of life, so a busy link is never pinged; WithKeepalive refuses
// values below one second). A realm missing for a minute is retried every
// two minutes. Operations issued while disconnected wait for a session (10
// s by default) and then fail with ErrNotConnected. Stop is final. Run
// wraps Start, a main function and Stop, and stops on SIGINT or SIGTERM;
// Stop, called from anywhere, cancels the main function's context. Session
// describes the live session (id, realm, authid, role, WELCOME details);
// WithAttemptHandler reports the outcome of every connection attempt.
// ForRealm makes a second client of the same app, with the same identity,
// credential and options, on another realm (a provider app's, for package
// crossapp); it stops with the first.
//
// A slow handler never holds up the connection. Each subscription queues
// at most 1024 events for its handler and then drops the oldest for each
// new one (QueueLimit, WithEventQueueLimit, Subscription.Dropped); each
// registration runs at most 256 invocations at once and answers one more
// with wamp.error.unavailable (InvocationLimit, WithInvocationLimit,
// Registration.Refused).
//
// # Fleet tables
//
// The tables of the app's data template are written with PublishToTable
// (fire and forget), AppendToTable (confirmed), PublishRowsToTable and
// AppendRowsToTable (atomic batches) and ReportError (the error-logs
// table); they are read with GetHistory (Query, with the filter builders
// Where, IsNull, IsNotNull, Latest, And, Or and the ranges Between, Since,
// Until) and GetSeriesHistory, and streamed with SubscribeToTable. Writes
// carry the device metadata. Table operations wait for a session up to the
// reconnect window (60 s, WithReconnectWindow), send again a request the
// connection lost before it left the client, and retry a call the data
// backend has not registered yet; a table the template does not declare
// fails with ErrUnknownTable. Packages built on the client call the data
// backend's other procedures the same way with Query.Payload and CallData
// (ErrNotServed for a procedure the running backend lacks).
//
// # Values
//
// Arguments are converted to the wire form of the platform: structs by their
// json tags, times as RFC 3339 strings in UTC, []byte as binary, floats stay
// floats, integers as int64. A Kwargs value among the arguments becomes the
// keyword arguments. Values received are map[string]any, []any, string,
// int64, float64, bool, []byte or nil; Decode and the Decode methods of
// Event, Result and Invocation convert them into Go types. Into (a call
// option) and LazyArgs (a registration option) decode a call's result and
// an invocation's arguments into a Go value straight from the message,
// without that wire form; a handler's struct result is written straight
// into its answer.
//
// # Errors
//
// Every error names the operation and the URI and wraps the reason: a
// sentinel (ErrInvalidArgument, ErrMissingConfig, ErrNotConnected,
// ErrConnectionLost, ErrNotSent, ErrOutcomeUnknown, ErrStopped,
// ErrAlreadyStarted, ErrTimeout) for errors.Is, or a *WampError carrying
// the platform's error URI for errors.As. Nothing returns nil on failure.
//
// # Lost connections
//
// A connection that ends during an operation gives ErrConnectionLost and
// one of two sentinels that say what to do:
//
//   - ErrNotSent: the request never left the client, so sending it again
//     is safe. The table operations, which have a reconnect window, do so
//     by themselves on the next session while the window lasts; the other
//     operations return it.
//   - ErrOutcomeUnknown: the request was written and the connection ended
//     before the answer. It may have taken effect: a row stored, a
//     publication delivered, a procedure run. It is never retried by the
//     client. Retry it only when doing it twice is harmless (an idempotent
//     procedure, or a row of a table with an entity key sent again with the
//     same tsp, which the data backend refuses as a duplicate with
//     sys.dataservice.error.entity_key_conflict if it was stored), or check
//     first, e.g. by reading the row back with GetHistory.
package client
