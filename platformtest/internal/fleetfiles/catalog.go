// This file serves the catalog and the usage (docs/wire.md §7.15):
//
//	files.read.namespaces  no payload → {namespaces: [{name, description,
//	                       private, content_types, max_object_bytes}],
//	                       inline_max_bytes, list_max_limit, quota_bytes,
//	                       suggested_quota_bytes, sad_key,
//	                       presign_available, presign_max_bytes,
//	                       public_base_url, cloud_base_url}
//	files.read.usage       none or {detail: true} → {size_bytes,
//	                       object_count, quota_bytes, free_bytes,
//	                       per_namespace?}
//
// Namespaces are sorted by name; quota_bytes is the project user's
// setting (0 = unlimited, free_bytes -1); suggested_quota_bytes is the
// template's files.quotaBytes (0 without one). public_base_url is the
// platform's HTTP URL, cloud_base_url is "".

package fleetfiles

import (
	"context"

	"github.com/flockgo/ironflock/internal/wire"
)

func (c *call) serveNamespaces() (map[string]any, *failure) {
	if f := c.allow(accessRead, nil); f != nil {
		return nil, f
	}
	b := c.b
	var list []any
	for _, name := range b.tpl.NamespaceNames() {
		ns, _ := b.tpl.Namespace(name)
		list = append(list, map[string]any{
			wire.FieldName:           ns.Name,
			wire.FieldDescription:    ns.Description,
			wire.FieldPrivate:        ns.Private,
			wire.FieldContentTypes:   toAnyList(ns.ContentTypes),
			wire.FieldMaxObjectBytes: ns.MaxObjectBytes,
		})
	}
	var suggested int64
	if b.tpl != nil && b.tpl.Files != nil {
		suggested = b.tpl.Files.QuotaBytes
	}
	set := b.svc.settings()
	return map[string]any{
		wire.FieldNamespaces:          list,
		wire.FieldInlineMaxBytes:      set.InlineMaxBytes,
		wire.FieldListMaxLimit:        int64(wire.MaxListLimit),
		wire.FieldQuotaBytes:          b.svc.quota(b.ri.Name),
		wire.FieldSuggestedQuotaBytes: suggested,
		wire.FieldSadKey:              b.sad,
		wire.FieldPresignAvailable:    set.Presign,
		wire.FieldPresignMaxBytes:     wire.PresignMaxBytes,
		wire.FieldPublicBaseURL:       b.svc.cfg.BaseURL(),
		wire.FieldCloudBaseURL:        "",
	}, nil
}

func (c *call) serveUsage() (map[string]any, *failure) {
	if f := c.allow(accessRead, nil); f != nil {
		return nil, f
	}
	detail, f := c.req.bool(wire.FieldDetail)
	if f != nil {
		return nil, f
	}
	b := c.b
	quota := b.svc.quota(b.ri.Name)
	perNS := map[string]any{}
	for _, name := range b.tpl.NamespaceNames() {
		perNS[name] = int64(0)
	}
	per, count, err := b.store.Usage(context.Background())
	if err != nil {
		return nil, storageFailure("reading the usage", err)
	}
	var used int64
	for ns, n := range per {
		perNS[ns], used = n, used+n
	}
	free := int64(-1)
	if quota > 0 {
		free = max(quota-used, 0)
	}
	out := map[string]any{
		wire.FieldSizeBytes:   used,
		wire.FieldObjectCount: count,
		wire.FieldQuotaBytes:  quota,
		wire.FieldFreeBytes:   free,
	}
	if detail {
		out[wire.FieldPerNamespace] = perNS
	}
	return out, nil
}

func toAnyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
