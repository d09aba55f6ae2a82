// This file holds what the console's overview says of where the
// PostgreSQL store keeps the rows: the server and the database, never the
// user's password. It serves no URI.

package fleetdb

import "fmt"

// placed is a store that says where it keeps the rows.
type placed interface{ place() string }

// StorePlace says where the DB's store keeps the rows when they are not
// with the platform (PostgreSQL: its server and database); "" for the
// memory and data folder stores.
func (db *DB) StorePlace() string {
	if p, ok := db.cfg.Store.(placed); ok {
		return p.place()
	}
	return ""
}

// place is the server and database, with the schema prefix when there is
// one.
func (s *pgStore) Place() string {
	out := fmt.Sprintf("PostgreSQL at %s", s.where())
	if s.prefix != "" {
		out += fmt.Sprintf(", schemas %s*", s.prefix)
	}
	return out
}
