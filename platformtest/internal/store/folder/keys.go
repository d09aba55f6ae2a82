// This file holds the key of secret columns the data folder keeps in
// fleet.db beside the rows (fleetdb.KeyStore), so that the next platform
// on the same folder decrypts what the last one encrypted.

package folder

import (
	"context"
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// SecretKey returns the key of secret columns kept in the file, keeping
// fresh the first time.
func (s *boltStore) SecretKey(ctx context.Context, fresh []byte) ([]byte, error) {
	key, err := s.db.Keep(ctx, "keys", "secret-columns", func() ([]byte, error) { return fresh, nil })
	if err == nil && len(key) != len(fresh) {
		err = fmt.Errorf("%w: %s: bucket keys: the key of secret columns has %d bytes, want %d", datadir.ErrDamaged, s.db.Name(), len(key), len(fresh))
	}
	return key, err
}
