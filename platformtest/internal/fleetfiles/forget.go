// This file holds what the file service offers the reconciliation with
// flockd's configuration (realm.Forgetter, realm.Migrator): Forget, when
// a realm leaves the configuration and its bucket goes with every object
// in it, and Migrate, when its app's data template changed: the objects
// of the namespaces it removed go (the reconciliation allowed it), and
// the bucket takes the new namespaces. It serves no URI.

package fleetfiles

import (
	"context"
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

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
	// The store may hold objects of a realm not used since the start.
	if err := s.cfg.Objects.Drop(context.Background(), realmName); err != nil {
		return fmt.Errorf("files of %s: %w", realmName, err)
	}
	if b != nil {
		s.cfg.Log.Info("file bucket removed with its objects", "realm", realmName)
	}
	return nil
}

// Migrate brings a realm's bucket to its app's changed data template: the
// objects of the namespaces ch removes are deleted, and the bucket serves
// the template the registry now holds (its sad_key and objects stay). The
// realm's sessions see the new namespaces once it is brought up again.
func (s *Service) Migrate(realmName string, ch realm.TemplateChange) error {
	s.mu.Lock()
	b := s.buckets[realmName]
	s.mu.Unlock()
	var objs store.Bucket
	if b != nil {
		objs = b.store
		ri, tpl, err := s.cfg.Lookup(realmName)
		if err != nil {
			return fmt.Errorf("files of %s: %w", realmName, err)
		}
		nb := &bucket{svc: s, ri: ri, tpl: tpl, sad: b.sad, store: b.store}
		s.mu.Lock()
		if s.buckets[realmName] == b {
			s.buckets[realmName], s.bySad[b.sad] = nb, nb
		}
		s.mu.Unlock()
	} else if len(ch.RemovedNamespaces) > 0 { // the store may hold objects of a realm not used since the start
		var err error
		if objs, err = s.cfg.Objects.Bucket(context.Background(), realmName); err != nil {
			return fmt.Errorf("files of %s: %w", realmName, err)
		}
	}
	for _, ns := range ch.RemovedNamespaces {
		if err := objs.DropNamespace(context.Background(), ns); err != nil {
			return fmt.Errorf("files of %s: namespace %s: %w", realmName, ns, err)
		}
		s.cfg.Log.Info("file namespace removed with its objects", "realm", realmName, "namespace", ns)
	}
	return nil
}
