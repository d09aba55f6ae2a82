// Package fleetdb is the fake platform's data backend: one backend per
// realm realm-<S>-<A>-<stage>, driven by the app's data template (docs/fake.md
// ), attached to the realm as a realm.Service. For each declared
// table and the system table error-logs it registers
//
//	history.transformed.<t>          table reads (history.go)
//	history.transformed.series.<t>   series reads (series.go)
//	append.<S>.<A>.<t>               single-row appends (write.go)
//	appendBulk.<S>.<A>.<t>           bulk appends (write.go)
//
// and subscribes <S>.<A>.<t> and bulk.<S>.<A>.<t> (write.go); for each
// table with a secret column it registers secret.reveal.<t> and
// secret.verify.<t> (secrets.go, rate limits in ratelimit.go); for each
// transform it registers history.transformed.<transform> (history.go).
// Undeclared tables therefore answer wamp.error.no_such_procedure and
// their publications reach nobody. It publishes transformed.<t>,
// transformed.bulk.<t> and transformed.<transform> (feed.go).
//
// Secret columns are encrypted at rest with AES-256-GCM under a key made
// when the DB is (crypt.go); reads and feeds mask them, reveal decrypts
// them.
//
// Not served: sys.appaccess.resolve and sys.appaccess.list (attach.go
// marks where they go).
//
// The rows live in the DB's Store, not in a realm's Host, so they survive
// Restart, Down/Up and withheld realms. The Store is the rows seam of
// package store (store.Rows; rows.go names it here): between the WAMP
// service, which validates, types, encrypts, masks, chunks, publishes and
// rate-limits, and a backend, which appends rows with the entity rules
// and answers reads given as validated, typed queries (store.ReadQuery,
// the store.Filter this package compiles in filter.go), so that a
// database can answer them in SQL. The backends are packages of their
// own: store/memory (the default), store/folder (a data folder) and
// store/postgres, which answers in SQL with the same semantics (a
// differential test compares them), computes transforms from their SQL,
// applies retention and downsampling and gives read-only SQL access. What
// a backend does not do it answers with store.ErrNotSupported, and the DB
// decides what that means; the key of secret columns comes from the keys
// seam (store.Keys) kept with the rows, through Config.SecretKey. The timed
// work of a backend (a transform's schedule, the store's maintenance) runs
// on the platform clock (schedule.go). The DB never asks which store it has; a store's failure
// is answered as storeError (errors.go) says, never as a success. The
// platform records every inbound payload before the backend validates it.
// The DB's methods in hooks.go are the control hooks the platform's facade
// offers tests. Every behaviour test of this package and of the facade's
// fleetdb tests runs once per store (eachStore).
//
// Each file lists the URIs it serves and the choices it makes where the
// documents are silent.
package fleetdb
