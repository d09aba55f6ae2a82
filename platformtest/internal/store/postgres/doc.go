// Package postgres is the rows backend in a PostgreSQL database (flockd
// -db, platformtest.WithPostgres), and the only package of the module
// that imports the PostgreSQL driver (pgx) outside tests. Each realm's data
// backend is a schema with a typed table per data-template table, each
// transform a view (materialized when the template says so) computed by
// PostgreSQL from its SQL, dropAfter and downsample applied on the
// platform clock (TimescaleDB when the server has it), a read-only role
// per realm for direct SQL (the console's SQL page and the connection
// strings flockd prints), a ledger of the seed rows it holds and the key
// of secret columns in the store's own schema. A migration runs in a
// transaction (Check runs it and rolls it back), so that a template it
// refuses (a transform whose SQL fails, a column it would drop without
// AllowDrop) changes nothing. docs/postgres.md describes the layout.
package postgres
