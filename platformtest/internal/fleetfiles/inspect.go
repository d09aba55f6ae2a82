// This file holds the usage of a bucket as the platform's own tools
// (flockd's web console) show it: the declared namespaces, the bytes
// stored and the budget. It serves no URI.

package fleetfiles

// Usage is a bucket's storage against its budget.
type Usage struct {
	Namespaces []string // declared in the app's data template, sorted
	UsedBytes  int64
	Objects    int
	QuotaBytes int64 // 0: unlimited
	Absent     bool  // the deployment has no file service
}

// Usage returns the bucket's usage, after retention.
func (h *Bucket) Usage() Usage {
	b := h.b
	b.sweep(b.svc.cfg.Clock.Now())
	u := Usage{Namespaces: b.tpl.NamespaceNames(), QuotaBytes: b.svc.quota(b.ri.Name), Absent: b.svc.cfg.Absent}
	b.mu.Lock()
	u.UsedBytes, u.Objects = b.used, len(b.objects)
	b.mu.Unlock()
	return u
}

// Objects returns how many objects the service keeps over every realm.
func (s *Service) Objects() (int64, error) {
	s.mu.Lock()
	bs := make([]*bucket, 0, len(s.buckets))
	for _, b := range s.buckets {
		bs = append(bs, b)
	}
	s.mu.Unlock()
	var n int64
	for _, b := range bs {
		b.mu.Lock()
		n += int64(len(b.objects))
		b.mu.Unlock()
	}
	return n, nil
}
