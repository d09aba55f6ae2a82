// Package fleetfiles is the fake platform's file service (the platform
// calls it fleetfiles) with its object store: managed object storage per
// app data backend, modelled on fleetfiles v0.2.0 (docs/wire.md §7.15,
// docs/fake.md).
//
// On every realm it registers the files.read.* and files.write.*
// procedures, which always answer a RESULT holding an envelope
// {success, payload} or {success: false, code, reason}, and publishes
// files.events. The namespaces are "default", which every app has,
// and those the app's data template declares (declaring "default" sets its
// options), with their content types,
// maxObjectBytes, privacy, linkMaxTtl and retention. All namespaces of a
// realm share one budget, the project user's quota.
//
// The same service serves the object store and permanent object URLs on
// the platform's HTTP server (Mount): presigned GET and PUT URLs under
// /store/, checked on every request (signature, expiry and clock skew on
// the platform clock), and permanent URLs under /f/ that need a
// credential with read access on the data backend.
//
// The objects are kept in Config.Objects, a store.Objects the platform
// chooses (in memory, store/memory, or in a data folder, store/folder),
// which answers with plain errors (store.ErrNotFound, store.ErrFull,
// *store.LimitError); the service turns them into its refusals and never
// asks which store it has. Settings (the inline limit, presigning, an
// unreachable store, the devices' clock skew, quotas) change at run time
// through Update; Config.Absent makes a deployment without a file
// service. The package knows nothing of the platform facade; the facade
// wires it in (platformtest/files.go).
package fleetfiles
