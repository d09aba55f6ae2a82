package client_test

import (
	"errors"
	"testing"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// TestOutcomeUnknownRefusal: the data backend's outcome_unknown (its
// storage lost the answer of a write's commit) matches ErrOutcomeUnknown,
// also inside an OpError, and no other refusal does.
func TestOutcomeUnknownRefusal(t *testing.T) {
	lost := &client.OpError{Op: "AppendToTable", URI: "append.2.26.readings",
		Err: &client.WampError{URI: wire.ErrOutcomeUnknown, Args: []any{"the rows may be stored or not"}}}
	if !errors.Is(lost, client.ErrOutcomeUnknown) {
		t.Errorf("%v does not match ErrOutcomeUnknown", lost)
	}
	if !errors.Is(lost, &client.WampError{URI: wire.ErrOutcomeUnknown}) {
		t.Errorf("%v does not match its URI", lost)
	}
	for _, uri := range []string{wire.ErrRuntimeError, wire.ErrStorageFull, wire.ErrEntityKeyConflict} {
		if err := (&client.WampError{URI: uri}); errors.Is(err, client.ErrOutcomeUnknown) {
			t.Errorf("%s matches ErrOutcomeUnknown", uri)
		}
	}
}
