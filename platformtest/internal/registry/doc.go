// Package registry is the provisioned world of the fake platform: projects
// (swarms) with their devices and groups, apps with their releases, users
// of the management API, installations of apps on devices with their
// per-app credentials, the realms those installations create, and the
// cross-app grants. It is the domain model both the router (who may join
// which realm) and the management REST API read and change.
//
// All state lives in one State guarded by the Registry's lock; callers run
// a function under the lock with Do. The lock is a leaf: code running
// under it calls nothing outside this package but the clock and the
// logger, so the router and the REST handlers may take it while they hold
// none of their own, and must not take their own locks inside Do.
//
// Stages are the strings wire.StageDev and wire.StageProd; app states and
// release statuses are the wire.AppState* and wire.Release* names.
package registry
