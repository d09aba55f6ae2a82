// This file holds Usage (files.read.usage): the storage the app uses and
// its budget.

package files

import (
	"context"

	"github.com/flockgo/ironflock/internal/wire"
)

// Usage is the storage the app uses.
type Usage struct {
	// SizeBytes is the bytes stored, in every namespace.
	SizeBytes int64
	// ObjectCount is the number of objects.
	ObjectCount int64
	// QuotaBytes is the enforced budget; 0 is unlimited.
	QuotaBytes int64
	// FreeBytes is what remains of the budget; -1 is unlimited.
	FreeBytes int64
	// PerNamespace maps each namespace to its bytes; only with Detail.
	PerNamespace map[string]int64
}

// Usage returns the storage the app uses. Detail adds the bytes of each
// namespace, at the cost of a listing per namespace on the server.
// Honours Detail.
func (s *Store) Usage(ctx context.Context, opts ...Option) (*Usage, error) {
	set := settingsOf(opts)
	var req map[string]any
	if set.detail {
		req = map[string]any{wire.FieldDetail: true}
	}
	p, err := s.call(ctx, wire.FilesUsage, req)
	if err != nil {
		return nil, opError("files.Usage", wire.FilesUsage, "", err)
	}
	u := &Usage{
		SizeBytes:   intField(p, wire.FieldSizeBytes),
		ObjectCount: intField(p, wire.FieldObjectCount),
		QuotaBytes:  intField(p, wire.FieldQuotaBytes),
		FreeBytes:   intField(p, wire.FieldFreeBytes),
	}
	if per, ok := p[wire.FieldPerNamespace].(map[string]any); ok {
		u.PerNamespace = map[string]int64{}
		for ns := range per {
			u.PerNamespace[ns] = intField(per, ns)
		}
	}
	return u, nil
}
