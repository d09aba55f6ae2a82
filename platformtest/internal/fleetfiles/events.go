// This file publishes files.events (docs/wire.md §7.15):
// {"action": "put"|"delete", "object": descriptor} after every stored
// object (put, copy, direct upload) and every delete that removed one.
// Events of a private namespace exclude role app_reader. Expiry by
// retention publishes nothing, as object-store lifecycle rules do not.

package fleetfiles

import (
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// publish sends an event through the realm's current Host, if any; a Host
// that has ended (the realm went down) drops it.
func (b *bucket) publish(action, ns string, descriptor map[string]any) {
	b.mu.Lock()
	h := b.host
	b.mu.Unlock()
	if h == nil {
		return
	}
	var opts wamp.Dict
	if n, ok := b.tpl.Namespace(ns); ok && n.Private {
		opts = wamp.Dict{wire.OptExcludeAuthRole: wamp.List{wire.RoleAppReader}}
	}
	event := map[string]any{wire.FieldAction: action, wire.FieldObject: descriptor}
	if err := h.Publish(wire.FilesEventsTopic, opts, wamp.List{event}, nil); err != nil {
		h.Log.Debug("files.events not published", "realm", b.ri.Name, "err", err)
	}
}
