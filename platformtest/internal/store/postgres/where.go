// This file holds what the console's overview says of where the
// PostgreSQL store keeps the rows: the server and the database, never the
// user's password. It serves no URI.

package postgres

import "fmt"

// Place is the server and database, with the schema prefix when there is
// one.
func (s *pgStore) Place() string {
	out := fmt.Sprintf("PostgreSQL at %s", s.where())
	if s.prefix != "" {
		out += fmt.Sprintf(", schemas %s*", s.prefix)
	}
	return out
}

// Qualified returns the schema-qualified, quoted name of a relation of the
// realm's schema (a table, a view, a downsample table), for tests and
// tools that read the realm's storage beside the store.
func (t *pgTables) Qualified(name string) string { return t.qualified(name) }

// TimeBucketSQL returns the statements that make the store's own
// time_bucket and its helpers in schema (the functions a server without
// TimescaleDB uses), for comparing them with TimescaleDB's.
func TimeBucketSQL(schema string) string { return timeBucketSQL(schema) }
