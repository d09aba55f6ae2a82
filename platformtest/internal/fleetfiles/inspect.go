// This file holds the usage of a bucket as the platform's own tools
// (flockd's web console) show it: the declared namespaces, the bytes
// stored and the budget. It serves no URI.

package fleetfiles

import "context"

// Usage is a bucket's storage against its budget.
type Usage struct {
	Namespaces []string // declared in the app's data template, sorted
	UsedBytes  int64
	Objects    int
	QuotaBytes int64 // 0: unlimited
	Absent     bool  // the deployment has no file service
}

// Usage returns the bucket's usage, after retention. A data folder that
// cannot be read is logged and shows nothing stored.
func (h *Bucket) Usage() Usage {
	b := h.b
	b.sweep(b.svc.cfg.Clock.Now())
	u := Usage{Namespaces: b.tpl.NamespaceNames(), QuotaBytes: b.svc.quota(b.ri.Name), Absent: b.svc.cfg.Absent}
	per, n, err := b.store.Usage(context.Background())
	for _, used := range per {
		u.UsedBytes += used
	}
	u.Objects = int(n)
	if err != nil {
		b.svc.cfg.Log.Error("files: usage not read", "realm", b.ri.Name, "err", err)
	}
	return u
}

// Objects returns how many objects the store keeps over every realm.
func (s *Service) Objects() (int64, error) {
	return s.cfg.Objects.Count(context.Background())
}
