// This file holds how the data backend continues the trace of a
// publication whose rows it stores, as it does an append's (docs/wire.md
// §13): the router noted the PUBLISH's trace context under the
// publication's first argument (realm.NotePublicationTrace).

package fleetdb

import (
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// publicationTrace returns the context of the store continuing the trace
// of the publication ev belongs to; the zero value when it carried none
// (or one of another version than W3C's 00).
func publicationTrace(ev *wamp.Event) realm.Trace {
	tr := realm.TakePublicationTrace(ev.Arguments)
	if tr == nil {
		return realm.Trace{}
	}
	child, _ := tr.Child()
	return child
}
