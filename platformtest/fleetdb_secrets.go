// This file is the facade of the data backend's secret columns: the
// plaintext of stored rows for tests. The secret procedures themselves
// (secret.reveal.<t>, secret.verify.<t>) are served on the wire by
// internal/fleetdb. It serves no URI.

package platformtest

import "context"

// DecryptedTableRows returns the rows of TableRows with every secret
// column decrypted to its plaintext (NULL stays nil).
//
// It exists because TableRows shows what direct SQL access to the
// platform's database shows, the ciphertext, and a test sometimes needs
// to check what was stored without going through secret.reveal.<t>, which
// is rate limited and only for role app. Nothing on the wire can read
// secrets this way. An unknown realm or table fails the test (a platform
// made by Start panics).
func (p *Platform) DecryptedTableRows(realm, table string) []map[string]any {
	rows, err := p.fleet.DecryptedTableRows(context.Background(), realm, table)
	if err != nil {
		p.failf("%v", err)
		return nil
	}
	return rows
}
