// Package store is the storage floor under the fake platform: the seams
// the services keep their state through, in the services' own terms, and
// the plain errors the backends report.
//
// The seams are
//   - rows: fleet tables, history, series, latest rows, transforms and
//     retention (the data service, platformtest/internal/fleetdb);
//   - objects: the files of the file service (fleetfiles);
//   - entities: the registry's projects, devices, apps, installations and
//     the rest of the fleet (registry);
//   - keys: the keys that seal secret columns and sign presigned URLs.
//
// Each backend is a package of its own below this one: memory (nothing
// kept), folder (a data folder, flockd -data) and postgres (flockd -db; the
// only package that imports the PostgreSQL driver). The facade picks the
// backend of each seam in one place; no service asks which one it has. A
// backend answers with the errors of this package (wrapped with what it
// was doing), never with a wire refusal: the services turn them into the
// platform's answers.
//
// storetest holds one conformance suite per seam and the one list of
// backends every suite runs on.
package store
