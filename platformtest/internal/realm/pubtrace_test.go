package realm

import (
	"testing"

	"github.com/gammazero/nexus/v3/wamp"
)

func TestPublicationTrace(t *testing.T) {
	row, bulk := map[string]any{"v": 1}, []any{map[string]any{"v": 2}}
	tr, tb := &Trace{Parent: "p-row"}, &Trace{Parent: "p-bulk"}
	NotePublicationTrace(wamp.List{row}, tr)
	NotePublicationTrace(wamp.List{bulk, "extra"}, tb)
	NotePublicationTrace(wamp.List{"a scalar"}, &Trace{Parent: "p-scalar"})
	NotePublicationTrace(wamp.List{map[string]any{}}, nil)

	// a local EVENT's arguments: a copy of the list holding the same values
	if got := TakePublicationTrace(append(wamp.List(nil), row)); got != tr {
		t.Errorf("trace of the row's publication = %v, want %v", got, tr)
	}
	if got := TakePublicationTrace(wamp.List{row}); got != nil {
		t.Errorf("a trace taken twice: %v", got)
	}
	if got := TakePublicationTrace(wamp.List{bulk, "extra"}); got != tb {
		t.Errorf("trace of the bulk publication = %v, want %v", got, tb)
	}
	if got := TakePublicationTrace(wamp.List{"a scalar"}); got != nil {
		t.Errorf("a scalar argument has trace %v", got)
	}
	if got := TakePublicationTrace(wamp.List{map[string]any{"v": 1}}); got != nil {
		t.Errorf("an equal but other map has trace %v", got)
	}

	// noted twice: the newer trace wins and survives the older's slot
	again := map[string]any{"v": 3}
	t1, t2 := &Trace{Parent: "first"}, &Trace{Parent: "second"}
	NotePublicationTrace(wamp.List{again}, t1)
	NotePublicationTrace(wamp.List{again}, t2)
	// bounded: the traces nobody takes go, oldest first
	first := map[string]any{"n": 0}
	NotePublicationTrace(wamp.List{first}, &Trace{Parent: "oldest"})
	for i := range maxNotedTraces - 2 {
		NotePublicationTrace(wamp.List{map[string]any{"n": i + 1}}, &Trace{Parent: "filler"})
	}
	if got := TakePublicationTrace(wamp.List{again}); got != t2 {
		t.Errorf("a row noted twice has trace %v, want the second", got)
	}
	if n := len(notedTraces.by); n > maxNotedTraces {
		t.Errorf("%d traces noted, more than %d", n, maxNotedTraces)
	}
	for i := range 2 { // maxNotedTraces notes since first's
		NotePublicationTrace(wamp.List{map[string]any{"last": i}}, &Trace{Parent: "filler"})
	}
	if got := TakePublicationTrace(wamp.List{first}); got != nil {
		t.Errorf("the oldest of %d noted traces is still there: %v", maxNotedTraces+1, got)
	}
}
