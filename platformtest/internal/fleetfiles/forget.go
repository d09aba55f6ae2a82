// This file holds Forget (realm.Forgetter): the reconciliation with
// flockd's configuration removed a realm, and its bucket goes with every
// object in it. It serves no URI.

package fleetfiles

// Forget drops the bucket of a realm and its objects; a realm without a
// bucket is no error. A later bucket of the same realm starts empty, with
// a new data backend key.
func (s *Service) Forget(realmName string) error {
	s.mu.Lock()
	b := s.buckets[realmName]
	if b != nil {
		delete(s.buckets, realmName)
		delete(s.bySad, b.sad)
	}
	s.mu.Unlock()
	if b != nil {
		b.clear()
		s.cfg.Log.Info("file bucket removed with its objects", "realm", realmName)
	}
	return nil
}
