// Package platformtest is an in-memory fake of the IronFlock platform for
// tests and local development: a WAMP router (nexus) with the platform's
// authentication and authorization, provisioning of projects, devices,
// apps and installations, a clock, fault injection and inspection of the
// traffic, all behind one HTTP server on the loopback interface.
//
//	p := platformtest.New(t)
//	dev := p.AddDevice("sensor-1")
//	app := p.AddApp("quickstart", templateYAML)
//	in := p.Install(dev, app, platformtest.Dev)
//	env := in.Env() // what a device agent injects: serial, keys, URL, credential
//
// Clients connect to URL (ws://127.0.0.1:PORT/ws-ua-usr) with the
// subprotocol wamp.2.msgpack or wamp.2.json and join the realm of an
// installation, realm-<swarm>-<app>-<dev|prod>, with WAMP-CRA.
//
// # What is faithful
//
//   - The WebSocket endpoint /ws-ua-usr, msgpack and JSON (with the WAMP
//     JSON convention for binary values), server pings every 20 seconds
//     with two missed pongs closing the link (docs/wire.md §2).
//   - Authentication (docs/wire.md §6): per-app credentials
//     app-<A>-<stage>-e<epoch>@<serial> with the HMAC-derived secret, the
//     previous epoch valid for 15 minutes of platform time after Rotate,
//     the legacy credential (serial, serial) on the realm of an app
//     installed on that device in that stage, case-sensitive authids with
//     leading zeros accepted, a challenge even for unknown authids, ABORT
//     wamp.error.authentication_failed on refusal (the reason only in
//     AuthLog), ABORT wamp.error.no_such_realm for a realm that does not
//     exist. Every admitted session's authid is the device serial, so
//     callees see caller_authid = serial.
//   - Authorization of role app (docs/wire.md §7.9 and the platform's
//     allow-list, see the rules in internal/router/authorize.go), refusals as ERROR
//     wamp.error.not_authorized, publications and calls disclosed to
//     subscribers and callees (publisher_authid, caller_authid = serial).
//   - Trace context (docs/wire.md §13): the _traceparent and _tracestate
//     options of a PUBLISH go into the details of its EVENTs, those of a
//     CALL into its INVOCATION's; an append (append.*, appendBulk.*) and a
//     publication to a table continue the trace (a new span id under the
//     caller's trace id), log it at debug level and send it with the
//     rows' realtime feed. The production router's handling of these keys
//     is not known.
//   - A device's call of a platform service: the router serves a plain CALL
//     (no progressive call or results) itself, without nexus's dealer, and
//     answers as the dealer does: the same INVOCATION details for the
//     service, options.timeout, CANCEL in every mode, "callee gone" when
//     the realm goes down (docs/fake.md §3).
//   - force_reregister: a REGISTER with it takes a procedure over from
//     another session; the previous owner gets UNREGISTERED with request 0
//     and details.registration. From an owner that is already leaving (its
//     link closing) it waits until the router has removed that session, up
//     to 5 seconds, instead of answering procedure_already_exists.
//   - No event is dropped for a subscriber that keeps up: while a link's
//     writes block, it queues up to 16 MiB of encoded messages. A link that
//     cannot keep up (its queue overflows, or a write stalls for 10
//     seconds) is dropped with a log line; keepalive pings run on their
//     own, so a stalled write does not stop them.
//   - Hostile peers: a WebSocket link may send 64 KiB before its session is
//     admitted (64 MiB per message after), at most 256 links may wait for
//     authentication (8,192 more upgrades wait up to 5 s in line for a
//     place; beyond, HTTP 503 with Retry-After), and what cannot be decoded is
//     answered as WAMP says: ERROR wamp.error.invalid_argument where the
//     request ID can be read, else ABORT wamp.error.protocol_violation.
//   - The legacy credential is admitted as on the real platform (its
//     default mode); WithStrictAuth refuses it (reason legacy_denied), as
//     the platform's strict mode does. A serial is easy to learn, so by
//     default one device can join another's realms as it.
//   - The location service: ironflock.location_service.update with
//     [{"long": x, "lat": y}] sets the position of the caller's device
//     (from its session, never from the arguments); long -180…180 and lat
//     -90…90, ends included, anything else wamp.error.invalid_argument
//     naming the field and range, with nothing stored. Only the current
//     position and its time are kept (Device.Location; the REST device
//     record's location). WithoutLocationService makes a platform without
//     it (wamp.error.no_such_procedure).
//   - The HTTP edge: listening on loopback (the default), the server
//     answers only requests for localhost, 127.x.y.z or ::1 (421
//     otherwise, against DNS rebinding) and the hosts WithAllowedHosts
//     names; a WebSocket upgrade from a browser origin other than the
//     platform's own is refused (403) unless WithAllowedOrigins names it.
//     Clients that send no Origin are never refused.
//
// # What is not
//
//   - Services: every service of the platform is there; the data backend,
//     the file service and the agent runtime are below.
//   - The router does not cache authentication and authorization verdicts
//     (the real one caches them for 10 and 30 seconds): rotations and
//     uninstalls take effect for the next join at once.
//   - There are no PLATFORM apps: every app of a project can be a provider
//     of cross-app reads.
//   - Uninstall leaves joined sessions alone, and realms are removed only by
//     Reconcile, when no installation of the seed uses them any more.
//   - CBOR, WebSocket compression, salted WAMP-CRA and payload
//     pass-through mode are not offered. The JSON binary convention is
//     applied to arguments and keyword arguments only. EVENT details carry
//     the topic (pattern subscriptions) and the publisher of an app's
//     publication, nothing else; publications of the platform's own
//     services are not disclosed to network subscribers.
//   - Time: Clock shifts platform time only; the router's own timeouts run
//     on real time.
//   - Management API: no device agent runs apps, so the current state of an
//     app follows its target state at once (SetCurrentState plays the
//     agent); groups, projects and users are not managed over the API.
//
// # Management REST API
//
// The same HTTP server serves the management API of docs/fake.md §9 under
// /v1/platform and /v1/ironflock (ManagementURL; package management is
// its Go client): devices, apps on devices, apps, releases and groups,
// sharing the platform's state. Users and their bearer tokens come from
// AddUser or a seed; an app created over the API belongs to its user.
// Installing an app over the API opens its realm to the device's per-app
// credential (InstallationOf gives a test the installation and its Env);
// uninstalling, removing a device from a group or deleting the device
// refuses the next join (not_installed). A device is CONNECTED while one
// of its sessions is joined. Release builds validate the templates with
// package template and last the WithBuildDuration of platform time (0 by
// default). The OpenAPI 3.1 document (OpenAPI, served at
// /v1/platform/openapi.json) lists every route, body, status and error
// code, and the choices the contract leaves open.
//
// # Data backend
//
// Every realm runs the app's data backend (fleetdb), driven by the data
// template given to AddApp (an invalid template fails AddApp with the
// validator's message; "" means no tables). For each declared table and the
// system table error-logs it serves history.transformed.<t>,
// history.transformed.series.<t>, append.<S>.<A>.<t> and
// appendBulk.<S>.<A>.<t>, and subscribes <S>.<A>.<t> and bulk.<S>.<A>.<t>;
// a table with a secret column also serves secret.reveal.<t> and
// secret.verify.<t>; each transform serves
// history.transformed.<transform>. Accepted rows are
// published on transformed.<t> and transformed.bulk.<t> while a session
// is subscribed to the topic (exactly or by a pattern; counted before its
// SUBSCRIBED goes out, until its link ends), which no subscriber can tell
// from publishing always; refused writes
// reported on databackend.errors.<t> (a topic apps may only subscribe
// to; the payload is this project's choice, docs/wire.md §7.8). Rows live in the
// Platform: they survive Restart, Down/Up and withheld realms. The source
// files of the data backend (platformtest/internal/fleetdb) each list the
// URIs they serve and the choices made where the documents are silent.
//
// The rows are kept by a store below the data backend: it appends rows
// (atomically, with the entity-key rules), answers reads given as
// validated, typed queries (time range, filters, latest marker, order,
// offset, limit, projection; series buckets and aggregates; transforms)
// and counts rows; validation, typing, encryption of secret columns,
// masking, chunking, feeds and rate limits stay above it, the same for
// every store. The store is in memory by default: rows live as long as the
// Platform (WithMemoryRowLimit and WithMemoryByteLimit bound them). WithDataDir keeps them in the
// data folder's fleet.db instead, on disk and across restarts.
// WithPostgres keeps them in a PostgreSQL database instead (a
// schema per realm; docs/postgres.md), with the same answers: it computes
// transforms from their SQL (views, materialized ones refreshed on their
// schedule, after a seed's rows and on demand), applies dropAfter and
// downsample, keeps the rows and the key of secret columns across
// platforms, records which seed rows went in (so that they go in once per
// database), and gives each realm a read-only role for direct SQL
// (SQLURL), reset at each start. A store's failure is answered, never
// acknowledged (storage_full for a write that does not fit, a
// Postgres-like runtime_error otherwise). See docs/fake.md §3.
//
// A transform with a cron schedule is published on
// transformed.<transform> at each tick of the platform clock (refreshed
// first when the store computes it); RunSchedules runs what is due after a
// test moved the clock, RefreshTransform one transform now.
//
// Faithful (docs/wire.md §7.3–7.8, docs/fake.md, package template, the seed's
// querying rules):
//
//   - Writes: column paths over {args, kwargs, details}, device_key as
//     JavaScript's Number(kwargs.DEVICE_KEY ?? args[0].DEVICE_KEY) (-1 for
//     NaN), authid the device serial, the storage typing of each column
//     type with Postgres-like errors (42804, 22007, 22008), a missing tsp
//     (append: runtime_error [{}]; publication: dropped, with an error-logs
//     row of source "system"), keys no column reads dropped from the
//     stored row (both logged as warnings, and failing the test with
//     WithStrictColumns), all-or-nothing batches, entity-key merge
//     inserts and entity_key_conflict, the secret placeholder and
//     ciphertext rules, the storage refusal switch; answers
//     {"success": true} and {"success": true, "count": n}.
//   - Feeds: typed rows with device_key and authid, secrets masked, only
//     the carried columns of a plain insert, the full row of a merge;
//     private tables, transforms and error-logs excluded for app_reader.
//   - Reads: the typia validators' error objects, the array and the
//     seed's object form of timeRange, truthy bounds truncated to whole
//     seconds, filter sanitation, SQL three-valued logic, LIKE/ILIKE with
//     escapes, IN/NOT IN with the empty-set rule, the seven latest-marker
//     rules (without entity key: the table's newest row, then the other
//     conditions and the time range, else no rows), newest first by (tsp,
//     insertion) with offset and limit then
//     ascending, projection (unknown column: 42703) and columnPaths, typed
//     values (timestamps as ISO 8601 UTC texts with milliseconds, whole
//     numbers as integers, NaN as null,
//     "__secret__"), chunking by estimated size (default 8 MiB) or
//     result_too_large, transforms (limit ≤ 3000), series with their
//     buckets (an open start reads from the table's first row), seven
//     aggregates, groupBy and refusals.
//   - Secrets (docs/wire.md §7.13): secret columns encrypted at rest with
//     AES-256-GCM under a per-platform key made at Start and a fresh random
//     nonce per row, stored as ifsec:1:<base64> (TableRows shows the
//     ciphertext, as direct SQL access does; DecryptedTableRows the
//     plaintext); reveal (newest first, requested columns plus every
//     secret column, limit 1–100 else invalid_limit) and verify
//     (constant-time, checked counts the selected rows, not_a_secret_column)
//     for role app only (every other role: not_authorized), filters on a
//     secret column refused in every read (secret_column), NULL passed
//     through; rate limits per operation and caller, 30 reveals and 120
//     verifications in a 60 s window of platform time (rate_limited).
//
// Not faithful:
//
//   - With the memory store the key of secret columns lives in memory
//     and dies with the platform (a data folder keeps it); a rate-limit
//     window opens with a caller's first call.
//   - The memory store cannot run a transform's SQL: its rows come from
//     SetTransformRows or the seed (apps[].transform_rows), and setting
//     them publishes the view once, as a schedule tick would.
//   - Text compares byte-wise (collation "C"); on the memory store and in
//     a data folder retention (dropAfter) and downsampling are not
//     modelled, column store nowhere without TimescaleDB; rate limits other than those of
//     the secret procedures are not modelled.
//   - The backend takes its tables from the app's data template when the
//     realm is first used; a later release's template does not change
//     them.
//
// Where the documents are silent the fake chooses, and says so in the file
// concerned: limit 0 answers no rows (as Postgres does for LIMIT 0), a
// comparison without a value is invalid_filter, series groups ascend
// within a bucket, and so on.
//
// InsertRows, TableRows, DecryptedTableRows, RefuseWrites, SetChunkBudget,
// SetTransformRows, RefreshTransform and RunSchedules control it from a
// test; Recorded shows every payload it received, as sent, before
// validation.
//
// # Agent runtime
//
// Every realm also runs the agent runtime (internal/agents), which calls
// the topic tools of an app's agent template (given to AddAppWithAgents,
// or by a seed's ai_template) as device functions, as the platform's AI
// agents do (docs/wire.md §7.14): CallTool invokes one tool on an
// installation's device (or the device its device_key argument names) at
// <S>.<device_key>.<A>.<STAGE>.<topic>, in the argument convention the test
// chooses (Convention: KeywordArgs, ObjectArg, PositionalArgs), so that a
// handler can be proven to accept all three; RunAgent plays agents whose
// turns a test scripted in place of a language model, following delegate
// tools into the agents they name and stopping an agent at its
// max_iterations; ToolCalls records every call with its answer. Faithful:
// the procedure and the device_key routing, device_key added and stripped,
// the tools of the release the device runs, results and error texts handed
// back as is. Not: there is no model (no prompts, context budgets,
// summaries or built-in tools); the convention is the test's choice; an
// agent stopped at max_iterations ends without an answer, a choice of this
// fake. flockd serves the same calls on a route of its own,
// POST /v1/flockd/devices/{device_key}/apps/{app_key}/agents/{agent}/tools/{tool},
// which is not part of the platform's API.
//
// # File service
//
// Every realm also runs the app's file service (fleetfiles) and the same
// HTTP server is its object store: files.read.namespaces, .usage, .list,
// .stat, .get, .url and files.write.put, .delete, .copy, .url, answering
// with the envelope {success, payload} or {success: false, code, reason};
// files.events after every stored or deleted object; presigned GET and
// PUT URLs under /store/ and permanent URLs under /f/ (docs/wire.md §7.15,
// docs/fake.md §3). Objects live in the Platform and survive Restart;
// those over 1 MiB in files of the spill folder (WithSpillDir), which a
// platform clears, when it starts, of what killed processes left there.
// Objects are served so that none can act on the platform's origin, which
// the console and the REST API share: every answer of /store/ and /f/
// carries Content-Security-Policy: sandbox and X-Content-Type-Options:
// nosniff, and only raster images and PDFs show inline; any other type is
// an attachment.
//
// Faithful: the namespace "default", which every app has, and those the
// data template declares (declaring "default" sets its options), with
// their content types, maxObjectBytes and retention (on
// the platform clock), the role matrix, the quota shared by all
// namespaces (0 unlimited, free_bytes -1), the key rules, listings with
// delimiter and cursor, ranged reads, presigned URLs checked on every
// request (signature over method, path, query and Content-Type; expiry
// on the platform clock; a Date more than 15 minutes off; Content-Length
// required; Range), share URLs readable by anyone until they expire
// (TTL clamped), upload URLs refusing other headers, permanent URLs
// needing a credential with read access on the data backend (HTTP Basic
// with a WAMP-CRA credential the realm admits, or a management token of a
// project member), re-checked on every request.
//
// Not faithful: keys are not normalised to NFC (no Unicode tables are at
// hand; keys are kept byte for byte), a list prefix may end in "/", key
// errors are INVALID_KEY rather than fleetfiles v0.2.0's INTERNAL, put
// answers last_modified (the seed's metadata; v0.2.0 leaves it out), the
// signature is an HMAC of the fake (SigV4 in shape only), the scan
// listing and a namespace's share mode are not modelled.
//
// SetFilesInlineMaxBytes, SetFilesPresign, SetObjectStoreReachable,
// SetDeviceClockSkew, SetFilesQuota, WithoutFileService and WithSpillDir
// set the deployment; FileObjects, FileContent and StoreFile inspect and
// seed the stored objects.
//
// # Faults and control
//
// DropConnections, FreezeConnections, Down, Up, Restart, WithholdRealm and
// ReleaseRealm break connections and the router; AuthOutage refuses every
// join with wamp.error.authentication_failed for a while, valid
// credentials included, as the production router does while its
// authenticator or database cannot verify them; Clock moves platform
// time; Sessions, WaitSessions, Recorded, Publications, Calls and AuthLog
// show what happened. Everything returned is a copy. The recording keeps
// every inbound message by default, as a test wants; WithRecording bounds
// it to a ring of the newest messages (by count and bytes) and
// WithoutRecording turns it off, as cmd/flockd does for a long run. The
// authentication log keeps the newest DefaultAuthLogLimit attempts
// (WithAuthLogLimit), and an interception its newest 10000 messages.
//
// WithConsole serves flockd's web console (internal/console) at / on the
// same HTTP server: the fleet, sessions, live traffic, tables, files,
// agent tools and, when its Write is set, the faults above at a click.
//
// OpsHandler serves flockd's ops endpoints (/healthz, /readyz, /stats,
// /metrics in Prometheus's text format, docs/flockd.md §9): Ready, Stats
// and WriteMetrics answer the same in Go. The production router's
// endpoints have these names; its metrics are not known, so flockd's are
// its own (flockd_*), labelled by templates, never by device.
//
// Intercept scripts the outage of one service, message by message, in the
// manner of kfake's control hooks: a Fault matches inbound messages of app
// sessions by kind, realm and URI (exact or prefix) and fails them with an
// error URI, drops them, delays them on the platform clock, holds them
// until Release, or only watches them (Seen, Wait); one-shot (Times) or
// kept until Cancel. Refuse (fail with an ERROR) is an interception. An
// interception acts before the router: a call it fails never reaches the
// callee, and the data backend, which never sees it, reports nothing on
// databackend.errors. RefuseWrites (a full disk: appends refused,
// publications dropped, for every table of a realm) is the data backend's
// own refusal, reported there as the platform's is.
//
// In a test, package clienttest gives a started SDK client for an
// installation in one line.
//
// # Data folder
//
// WithDataDir keeps the provisioned world (projects, devices with their
// serials and credential keys, apps and releases, groups, installations
// with their credential epochs, realms, users and tokens, grants) in a data
// folder (internal/datadir: bbolt files, a format version, a lock), every
// change on disk before the call that made it returns; a platform started
// again on the folder has the same world, so device programs reconnect with
// the credentials they hold. A folder another platform holds, of a newer
// format, or with a damaged or truncated file is refused, and so is one
// whose file does not hold its last acknowledged commit (deleted, emptied,
// an older copy, a lost meta page: COMMITS records each); an object whose
// content no longer matches its SHA-256 is not served; CheckDataDir
// checks one without serving it. Reconcile brings the kept world in line
// with a seed, as flockd does with its configuration at every start:
// additions, removals (with their realms' data) and template changes,
// refusing a change that drops data unless AllowDrop, and a data template
// the store would refuse (WithPostgres: a failing transform) before
// anything is kept. WithServeLater and Serve listen only once every
// realm's data backend is open (flockd). Table rows (with the
// key of secret columns) and file objects (records and content, the key
// of upload URLs and the numbers in permanent URLs) are kept there too, on
// disk rather than in memory: an append or a put is on disk before it is
// acknowledged, and a full disk refuses writes (storage_full; files
// INTERNAL) while reads go on. Without WithDataDir everything is in
// memory, the rows bounded by WithMemoryRowLimit and WithMemoryByteLimit
// when given.
//
// # Cross-app reads
//
// Grant, Revoke and Grants are the data-access grants of a project user
// (flockd's grants:). A consumer whose data template consumes a provider
// and holds a grant for it (or the wildcard) joins the provider's realms
// with its own per-app credential as app_reader: read-only history, series
// and feeds of the shared tables, secrets masked. sys.appaccess.resolve
// and sys.appaccess.list (internal/appaccess) answer on every app realm.
// Revoke ends the reader sessions no grant covers any more.
//
// # Layout
//
// This package is a facade. The provisioned world (projects, devices, apps
// and releases, groups, users, installations with their credentials,
// realms, grants) is internal/registry; the message router with its links,
// sessions, authentication, authorization, recording and interceptions is
// internal/router; the management REST API is internal/rest; each platform
// service is a package of its own attached to every realm through the
// seam of internal/realm: the data backend internal/fleetdb, cross-app
// discovery internal/appaccess, the agent runtime internal/agents and the
// file service internal/fleetfiles.
//
// A platform made by New fails its test on a provisioning mistake (a
// duplicate name, an unknown stage...); one made by Start panics. Seeds
// (ParseSeed, Apply) return errors instead.
package platformtest
