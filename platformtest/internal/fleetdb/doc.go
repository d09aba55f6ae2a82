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
// The rows live in the DB (store.go), not in a realm's Host, so they
// survive Restart, Down/Up and withheld realms. The platform records every
// inbound payload before the backend validates it. The DB's methods in
// hooks.go are the control hooks the platform's facade offers tests.
//
// Each file lists the URIs it serves and the choices it makes where the
// documents are silent.
package fleetdb
