// This file holds how the trace context of a publication reaches the
// platform's own subscribers, such as the data backend storing the rows
// published to a table (docs/wire.md §13). nexus hands a local session's
// EVENT a copy of the publication's argument list, without the router's
// note past its end that holds the trace, but the copy holds the same
// values: the router notes the trace under the identity of the first
// argument (a row's map, a bulk's list), and the subscriber takes it from
// there.

package realm

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/gammazero/nexus/v3/wamp"
)

// maxNotedTraces bounds the traces noted and not taken: the oldest goes
// first (a publication nobody stores is never taken).
const maxNotedTraces = 4096

// notedTraces maps the identity of a publication's first argument to its
// trace, for the publications that carried one.
var notedTraces struct {
	mu    sync.Mutex
	by    map[unsafe.Pointer]notedTrace
	order []unsafe.Pointer // a ring of maxNotedTraces keys, oldest at next
	next  int
}

// notedTrace is a trace with the argument it was noted under, kept so the
// argument's memory is not reused by another while noted.
type notedTrace struct {
	arg  any
	tr   *Trace
	slot int // its key's place in the ring
}

// argIdentity returns the identity of args' first argument when it is a
// map or a non-empty list; ok is false for anything else.
func argIdentity(args wamp.List) (p unsafe.Pointer, ok bool) {
	if len(args) == 0 {
		return nil, false
	}
	v := reflect.ValueOf(args[0])
	switch v.Kind() {
	case reflect.Map:
		return v.UnsafePointer(), !v.IsNil()
	case reflect.Slice:
		return v.UnsafePointer(), v.Len() > 0
	}
	return nil, false
}

// NotePublicationTrace notes tr, the trace a publication with arguments
// args carried, for TakePublicationTrace; the router calls it once per
// publication, before nexus delivers it.
func NotePublicationTrace(args wamp.List, tr *Trace) {
	p, ok := argIdentity(args)
	if !ok || tr == nil {
		return
	}
	n := &notedTraces
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.by == nil {
		n.by = make(map[unsafe.Pointer]notedTrace)
		n.order = make([]unsafe.Pointer, maxNotedTraces)
	}
	if old := n.order[n.next]; old != nil && n.by[old].slot == n.next {
		delete(n.by, old)
	}
	if t, ok := n.by[p]; ok { // noted again: the newer trace wins
		n.order[t.slot] = nil
	}
	n.by[p] = notedTrace{arg: args[0], tr: tr, slot: n.next}
	n.order[n.next] = p
	n.next = (n.next + 1) % maxNotedTraces
}

// TakePublicationTrace returns the trace noted for the publication whose
// EVENT carries args, and forgets it; nil when none was noted.
func TakePublicationTrace(args wamp.List) *Trace {
	p, ok := argIdentity(args)
	if !ok {
		return nil
	}
	n := &notedTraces
	n.mu.Lock()
	defer n.mu.Unlock()
	t, ok := n.by[p]
	if !ok {
		return nil
	}
	delete(n.by, p)
	n.order[t.slot] = nil
	return t.tr
}
